package io.actiongate.notifier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.policy.NotificationRoutes;

/**
 * The destinations the notifier is configured with, and the messages a route turns into: every name a route uses is
 * looked up here (a name not configured, or an address the smtp connector would refuse, is left out with one WARN per
 * route and name, never claimed for).
 */
final class Channels implements Notifier.Destinations, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Channels.class);

    /** One message of a notice: its channel and name for metrics and logs (never an address or a URL). */
    record Target(String channel, String name, Function<Notice, Delivery> send) {
    }

    private final Map<String, NotifierConfig.SlackWebhook> slack;
    private final Map<String, NotifierConfig.JsonWebhook> webhooks;
    private final EmailChannel email;
    private final HttpPoster poster;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    Channels(Map<String, NotifierConfig.SlackWebhook> slack, Map<String, NotifierConfig.JsonWebhook> webhooks,
             EmailChannel email, Duration connectTimeout, Duration responseTimeout) {
        this.slack = Map.copyOf(slack);
        this.webhooks = Map.copyOf(webhooks);
        this.email = email;
        this.poster = new HttpPoster(connectTimeout, responseTimeout);
    }

    static Channels of(NotifierConfig config) {
        EmailChannel email = config.email().map(EmailChannel::of).orElse(null);
        return new Channels(config.slack(), config.webhooks(), email, config.connectTimeout(),
                config.responseTimeout());
    }

    @Override
    public List<Target> targets(NotificationRoutes.Route route) {
        List<Target> out = new ArrayList<>();
        for (String name : route.slackWebhooks()) {
            NotifierConfig.SlackWebhook hook = slack.get(name);
            if (hook == null) {
                warnOnce(route, "slack_webhooks", name, NotifierConfig.SLACK_PREFIX + name + ".url is not set");
                continue;
            }
            out.add(new Target("slack", name, n -> poster.post(hook.url(), NoticeMessages.slack(n), Map.of())));
        }
        for (String name : route.jsonWebhooks()) {
            NotifierConfig.JsonWebhook hook = webhooks.get(name);
            if (hook == null) {
                warnOnce(route, "json_webhooks", name, NotifierConfig.WEBHOOK_PREFIX + name + ".url is not set");
                continue;
            }
            out.add(new Target("webhook", name, n -> poster.post(hook.url(), NoticeMessages.json(n),
                    headers(hook, n))));
        }
        List<String> emails = route.emails();
        for (int i = 0; i < emails.size(); i++) {
            String address = emails.get(i);
            String name = "emails[" + i + "]";
            if (email == null) {
                warnOnce(route, "emails", "", NotifierConfig.SMTP_PREFIX + "host is not set");
                break;
            }
            if (!email.accepts(address)) {
                warnOnce(route, name, "", "the address is not one the smtp connector sends to (allowed-domains)");
                continue;
            }
            out.add(new Target("email", name, n -> email.send(n, address)));
        }
        return out;
    }

    private static Map<String, String> headers(NotifierConfig.JsonWebhook hook, Notice n) {
        return hook.credentialValue() == null ? Map.of("Idempotency-Key", n.id())
                : Map.of("Idempotency-Key", n.id(), hook.credentialHeader(), hook.credentialValue());
    }

    private void warnOnce(NotificationRoutes.Route route, String field, String name, String why) {
        if (warned.add(route.key() + "|" + field + "|" + name)) {
            LOG.warn("route {} names {} {} that this notifier cannot send to: {}", route.key(), field, name, why);
        }
    }

    @Override
    public void close() {
        if (email != null) {
            email.close();
        }
    }
}
