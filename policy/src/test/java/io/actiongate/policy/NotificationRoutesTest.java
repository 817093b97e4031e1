package io.actiongate.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.actiongate.avro.NotificationRoute;
import io.actiongate.avro.PolicyRecord;

class NotificationRoutesTest {

    /** Decoded bodies by key, as either reader of the policy topic holds them. */
    private final Map<String, Object> bodies = new HashMap<>();
    private final PolicyBodies policy = new PolicyBodies() {
        @Override
        public <T> Optional<T> body(String key, Class<T> type) {
            Object body = bodies.get(key);
            return type.isInstance(body) ? Optional.of(type.cast(body)) : Optional.empty();
        }

        @Override
        public String defaultOrg() {
            return null;
        }
    };

    private void put(String org, String profile, String tool, String email, Long remindBeforeMs) {
        bodies.put(PolicyKey.notifyKey(org, profile, tool), NotificationRoute.newBuilder().setOrgId(org)
                .setProfileId(profile).setToolName(tool).setEmails(email == null ? List.of() : List.of(email))
                .setSlackWebhooks(List.of()).setJsonWebhooks(List.of()).setRemindBeforeMs(remindBeforeMs).build());
    }

    private String emailOf(String profile, String tool) {
        return NotificationRoutes.route(policy, "acme", profile, tool)
                .map(r -> r.emails().isEmpty() ? "nobody" : r.emails().get(0)).orElse("no route");
    }

    @Test
    void shouldTakeTheMostSpecificRouteToolBeforeProfile() {
        put("acme", "*", "*", "org@acme.example", null);
        assertThat(emailOf("agent", "send")).isEqualTo("org@acme.example");

        put("acme", "agent", "*", "profile@acme.example", null);
        assertThat(emailOf("agent", "send")).isEqualTo("profile@acme.example");
        assertThat(emailOf("other", "send")).isEqualTo("org@acme.example");

        put("acme", "*", "send", "tool@acme.example", null);
        assertThat(emailOf("agent", "send")).as("a tool's route before a profile's").isEqualTo("tool@acme.example");
        assertThat(emailOf("agent", "post")).isEqualTo("profile@acme.example");

        put("acme", "agent", "send", null, null);
        assertThat(emailOf("agent", "send")).as("the exact route, empty: nobody, never merged with a broader one")
                .isEqualTo("nobody");
        assertThat(NotificationRoutes.route(policy, "acme", "agent", "send").orElseThrow().nobody()).isTrue();
    }

    @Test
    void shouldFindNoRouteForAnotherOrgOrAMissingPart() {
        put("acme", "*", "*", "org@acme.example", null);

        assertThat(NotificationRoutes.route(policy, "beta", "agent", "send")).isEmpty();
        assertThat(NotificationRoutes.route(policy, "acme", null, "send")).isEmpty();
    }

    @Test
    void shouldIgnoreAnotherBodyOrAnotherOrgsRouteUnderANotifyKey() {
        put("acme", "*", "*", "org@acme.example", null);
        // a task body under the exact key, and another org's route under the profile key: neither counts
        bodies.put(PolicyKey.notifyKey("acme", "agent", "send"), io.actiongate.avro.TaskState.newBuilder()
                .setTaskId("t").setVersion(1).setStatus(io.actiongate.avro.LifecycleStatus.ACTIVE).build());
        bodies.put(PolicyKey.notifyKey("acme", "agent", "*"), NotificationRoute.newBuilder().setOrgId("beta")
                .setProfileId("agent").setToolName("*").setEmails(List.of("intruder@beta.example")).build());

        assertThat(emailOf("agent", "send")).isEqualTo("org@acme.example");
    }

    @Test
    void shouldReadTheReminderAsDefaultNoneOrADuration() {
        put("acme", "a", "*", "x@acme.example", null);
        put("acme", "b", "*", "x@acme.example", 0L);
        put("acme", "c", "*", "x@acme.example", 600_000L);

        assertThat(NotificationRoutes.route(policy, "acme", "a", "t").orElseThrow().remindBefore()).isEmpty();
        assertThat(NotificationRoutes.route(policy, "acme", "b", "t").orElseThrow().remindBefore())
                .contains(Duration.ZERO);
        assertThat(NotificationRoutes.route(policy, "acme", "c", "t").orElseThrow().remindBefore())
                .contains(Duration.ofMinutes(10));
    }

    @Test
    void shouldReadARouteFromThePolicyTopicThroughTheSerde() {
        byte[] bytes = PolicyRecords.SERDE.serialize(null, PolicyRecord.newBuilder().setKind("notify").setBody(
                NotificationRoute.newBuilder().setOrgId("acme").setProfileId("*").setToolName("*")
                        .setSlackWebhooks(List.of("ops")).build()).build());
        bodies.put(PolicyKey.notifyKey("acme", "*", "*"), PolicyRecords.SERDE.deserialize(null, bytes).getBody());

        NotificationRoutes.Route route = NotificationRoutes.route(policy, "acme", "agent", "send").orElseThrow();
        assertThat(route.slackWebhooks()).containsExactly("ops");
        assertThat(route.emails()).isEmpty();
        assertThat(route.key()).isEqualTo("notify:acme:*:*");
    }
}
