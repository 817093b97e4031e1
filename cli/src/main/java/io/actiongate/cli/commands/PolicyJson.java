package io.actiongate.cli.commands;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

import io.actiongate.avro.ApprovalMode;
import io.actiongate.avro.AuthorizationEpoch;
import io.actiongate.avro.Grant;
import io.actiongate.avro.GrantMode;
import io.actiongate.avro.Integration;
import io.actiongate.avro.LifecycleStatus;
import io.actiongate.avro.NotificationRoute;
import io.actiongate.avro.OriginState;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.TaskState;
import io.actiongate.avro.ToolDescriptor;
import io.actiongate.policy.PolicyKey;
import io.actiongate.policy.TaskOwnership;
import io.actiongate.serde.AvroSetup;

/**
 * Maps the operator's policy JSON to {@link PolicyRecord}s: one object, or an array of them, each with
 * {@code key}, {@code kind} and the body's fields beside them (snake_case, as in docs/contract.md section 3). The
 * body fields that the key repeats (e.g. {@code provider} and {@code tool_name} of {@code tool:webhook:send}) may
 * be left out and are taken from the key; when given they must agree with it.
 */
public final class PolicyJson {

    /** A validated policy record and its key. */
    public record Entry(PolicyKey key, PolicyRecord record) {
    }

    private PolicyJson() {
    }

    /** @throws IllegalArgumentException with a one-line reason for anything invalid (nothing is partially read) */
    public static List<Entry> fromJson(JsonNode json) {
        AvroSetup.install(); // builders fill defaults by loading contract classes, which Avro must trust
        List<Entry> entries = new ArrayList<>();
        if (json != null && json.isArray()) {
            if (json.isEmpty()) {
                throw new IllegalArgumentException("policy: the list is empty");
            }
            Set<String> seen = new HashSet<>();
            for (int i = 0; i < json.size(); i++) {
                Entry entry = entry("policy[" + i + "]", json.get(i));
                if (!seen.add(entry.key().toString())) {
                    throw new IllegalArgumentException("policy[" + i + "]: key " + entry.key() + " appears twice");
                }
                entries.add(entry);
            }
        } else {
            entries.add(entry("policy", json));
        }
        return entries;
    }

    static Entry entry(String what, JsonNode json) {
        JsonFields f = new JsonFields(what, json);
        String keyText = f.text("key");
        String kindText = f.text("kind");
        PolicyKey key;
        try {
            key = PolicyKey.parse(keyText);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + ": " + e.getMessage(), e);
        }
        if (!key.kind().prefix().equals(kindText)) {
            throw new IllegalArgumentException(what + ": kind '" + kindText + "' does not match key " + keyText);
        }
        for (int i = 0; i < key.parts().size(); i++) {
            String field = key.kind().partFields().get(i);
            if (f.has(field) && !key.parts().get(i).equals(f.raw(field).asText())) {
                throw f.bad(field, "is '" + f.raw(field).asText() + "' but the key says '" + key.parts().get(i)
                        + "'");
            }
        }
        Object body = switch (key.kind()) {
            case TOOL -> tool(f, key);
            case INTEGRATION -> integration(f, key);
            case GRANT -> grant(f, key);
            case EPOCH -> epoch(f, key);
            case TASK -> task(f, key);
            case ORIGIN -> origin(f, key);
            case NOTIFY -> notificationRoute(f, key);
        };
        return new Entry(key, PolicyRecord.newBuilder().setKind(key.kind().prefix()).setBody(body).build());
    }

    private static void allow(JsonFields f, String... bodyFields) {
        Set<String> allowed = new HashSet<>(List.of(bodyFields));
        allowed.add("key");
        allowed.add("kind");
        f.allowOnly(allowed);
    }

    private static ToolDescriptor tool(JsonFields f, PolicyKey key) {
        allow(f, "provider", "tool_name", "operation", "schema_hash", "read_only_hint", "destructive_hint",
                "idempotent_hint", "open_world_hint", "approval", "max_input_bytes", "enabled");
        int maxInputBytes = f.intValue("max_input_bytes");
        if (maxInputBytes <= 0) {
            throw f.bad("max_input_bytes", "must be positive");
        }
        return ToolDescriptor.newBuilder()
                .setProvider(key.parts().get(0))
                .setToolName(key.parts().get(1))
                .setOperation(f.text("operation"))
                .setSchemaHash(f.text("schema_hash"))
                .setReadOnlyHint(f.optionalBool("read_only_hint"))
                .setDestructiveHint(f.optionalBool("destructive_hint"))
                .setIdempotentHint(f.optionalBool("idempotent_hint"))
                .setOpenWorldHint(f.optionalBool("open_world_hint"))
                .setApproval(f.enumValue("approval", ApprovalMode.class))
                .setMaxInputBytes(maxInputBytes)
                .setEnabled(f.bool("enabled"))
                .build();
    }

    private static Integration integration(JsonFields f, PolicyKey key) {
        allow(f, "org_id", "provider", "enabled", "scopes");
        return Integration.newBuilder()
                .setOrgId(key.parts().get(0))
                .setProvider(key.parts().get(1))
                .setEnabled(f.bool("enabled"))
                .setScopes(f.textList("scopes", false))
                .build();
    }

    private static Grant grant(JsonFields f, PolicyKey key) {
        allow(f, "org_id", "profile_id", "tools", "mode", "chat_enabled");
        return Grant.newBuilder()
                .setOrgId(key.parts().get(0))
                .setProfileId(key.parts().get(1))
                .setTools(f.textList("tools", true))
                .setMode(f.enumValue("mode", GrantMode.class))
                .setChatEnabled(f.bool("chat_enabled"))
                .build();
    }

    private static AuthorizationEpoch epoch(JsonFields f, PolicyKey key) {
        allow(f, "org_id", "epoch");
        return AuthorizationEpoch.newBuilder().setOrgId(key.parts().get(0)).setEpoch(f.longValue("epoch")).build();
    }

    private static TaskState task(JsonFields f, PolicyKey key) {
        allow(f, "task_id", "org_id", "version", "status");
        return TaskState.newBuilder()
                .setTaskId(key.parts().get(0))
                .setOrgId(ownerOrg(f))
                .setVersion(f.longValue("version"))
                .setStatus(f.enumValue("status", LifecycleStatus.class))
                .build();
    }

    /** The owning org of a task or origin: required, since one without an owner admits nobody's proposal. */
    private static String ownerOrg(JsonFields f) {
        String org = f.text("org_id");
        if (!OWNER_ORG.matcher(org).matches()) {
            throw f.bad("org_id", "must match " + OWNER_ORG.pattern());
        }
        return org;
    }

    private static final java.util.regex.Pattern OWNER_ORG = TaskOwnership.ORG_ID;

    /** Most addresses one route may name. */
    static final int MAX_EMAILS = 50;
    /** Most webhooks of one kind one route may name. */
    static final int MAX_WEBHOOKS = 10;
    private static final java.util.regex.Pattern EMAIL = java.util.regex.Pattern.compile(
            "[A-Za-z0-9._%+'-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+");
    private static final java.util.regex.Pattern WEBHOOK_NAME = java.util.regex.Pattern.compile("[A-Za-z0-9._-]{1,64}");

    /**
     * A notification route (docs/contract.md section 7): addresses, and names of webhooks in the notifier's
     * configuration, never a URL (a Slack webhook's URL is its credential and stays out of the policy topic).
     */
    private static NotificationRoute notificationRoute(JsonFields f, PolicyKey key) {
        allow(f, "org_id", "profile_id", "tool_name", "emails", "slack_webhooks", "json_webhooks",
                "remind_before_ms");
        if (!OWNER_ORG.matcher(key.parts().get(0)).matches()) {
            throw f.bad("org_id", "must match " + OWNER_ORG.pattern() + " (a route is always one org's)");
        }
        List<String> emails = distinct(f, "emails", f.textList("emails", false), MAX_EMAILS);
        for (int i = 0; i < emails.size(); i++) {
            if (!EMAIL.matcher(emails.get(i)).matches()) {
                throw f.bad("emails[" + i + "]", "is not a bare email address (name@domain, no display name)");
            }
        }
        List<String> slack = webhookNames(f, "slack_webhooks", "notifier.slack.<name>.url");
        List<String> json = webhookNames(f, "json_webhooks", "notifier.webhook.<name>.url");
        Long remindBefore = null;
        if (f.has("remind_before_ms")) {
            remindBefore = f.longValue("remind_before_ms");
            if (remindBefore < 0) {
                throw f.bad("remind_before_ms", "must be 0 (no reminder) or positive");
            }
        }
        return NotificationRoute.newBuilder()
                .setOrgId(key.parts().get(0))
                .setProfileId(key.parts().get(1))
                .setToolName(key.parts().get(2))
                .setEmails(emails)
                .setSlackWebhooks(slack)
                .setJsonWebhooks(json)
                .setRemindBeforeMs(remindBefore)
                .build();
    }

    private static List<String> webhookNames(JsonFields f, String field, String configKey) {
        List<String> names = distinct(f, field, f.textList(field, false), MAX_WEBHOOKS);
        for (int i = 0; i < names.size(); i++) {
            if (!WEBHOOK_NAME.matcher(names.get(i)).matches()) {
                throw f.bad(field + "[" + i + "]", "must be the name of a webhook in the notifier's configuration ("
                        + configKey + "; letters, digits, . _ -), never its URL or a credential");
            }
        }
        return names;
    }

    private static List<String> distinct(JsonFields f, String field, List<String> values, int max) {
        if (values.size() > max) {
            throw f.bad(field, "names more than " + max);
        }
        if (new HashSet<>(values).size() != values.size()) {
            throw f.bad(field, "names one entry twice");
        }
        return values;
    }

    private static OriginState origin(JsonFields f, PolicyKey key) {
        allow(f, "conversation_id", "org_id", "status", "active_turn_id");
        return OriginState.newBuilder()
                .setConversationId(key.parts().get(0))
                .setOrgId(ownerOrg(f))
                .setStatus(f.enumValue("status", LifecycleStatus.class))
                .setActiveTurnId(f.optionalText("active_turn_id"))
                .build();
    }
}
