package io.actiongate.policy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.actiongate.avro.NotificationRoute;

/**
 * Who the notifier tells that an action waits for approval: the policy kind {@code notify} (docs/contract.md section
 * 7, "Reviewers are told"). For an action of org {@code O}, profile {@code P} and tool {@code T} the route is the first
 * of {@code notify:O:P:T}, {@code notify:O:*:T}, {@code notify:O:P:*}, {@code notify:O:*:*} that exists: the most
 * specific wins, a tool's own route before a profile's, and routes are never merged. Only the notifier asks; the gate
 * never looks up a {@code notify:} key.
 */
public final class NotificationRoutes {

    /** The key part that matches any profile or any tool. */
    public static final String ANY = "*";

    /**
     * A route as the notifier uses it: the destinations it names (addresses, and names of webhooks in the notifier's
     * configuration; never a URL or a credential) and when to remind: empty for the notifier's default,
     * {@link Duration#ZERO} for no reminder.
     */
    public record Route(String key, List<String> emails, List<String> slackWebhooks, List<String> jsonWebhooks,
                        Optional<Duration> remindBefore) {
        public Route {
            emails = List.copyOf(emails);
            slackWebhooks = List.copyOf(slackWebhooks);
            jsonWebhooks = List.copyOf(jsonWebhooks);
        }

        /** Whether the route names nobody (how a tool is kept quiet under a broader route). */
        public boolean nobody() {
            return emails.isEmpty() && slackWebhooks.isEmpty() && jsonWebhooks.isEmpty();
        }
    }

    private NotificationRoutes() {
    }

    /** The keys asked, most specific first. */
    public static List<String> candidates(String org, String profile, String toolName) {
        return List.of(PolicyKey.notifyKey(org, profile, toolName), PolicyKey.notifyKey(org, ANY, toolName),
                PolicyKey.notifyKey(org, profile, ANY), PolicyKey.notifyKey(org, ANY, ANY));
    }

    /**
     * The route of an action of {@code org}, {@code profile} and {@code toolName}, or empty when no route names it. A
     * record under a {@code notify:} key whose body is not a route, or whose {@code org_id} is not the key's, does not
     * count (the next candidate is asked).
     */
    public static Optional<Route> route(PolicyBodies policy, String org, String profile, String toolName) {
        if (org == null || profile == null || toolName == null) {
            return Optional.empty();
        }
        for (String key : candidates(org, profile, toolName)) {
            Optional<NotificationRoute> found = policy.body(key, NotificationRoute.class)
                    .filter(r -> org.equals(r.getOrgId()));
            if (found.isPresent()) {
                NotificationRoute r = found.get();
                Long before = r.getRemindBeforeMs();
                return Optional.of(new Route(key, r.getEmails(), r.getSlackWebhooks(), r.getJsonWebhooks(),
                        before == null ? Optional.empty() : Optional.of(Duration.ofMillis(Math.max(0, before)))));
            }
        }
        return Optional.empty();
    }
}
