package io.actiongate.policy;

import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A policy key {@code kind:part[:part]} (docs/contract.md section 2) and the shape each kind requires:
 * {@code tool:{provider}:{tool_name}}, {@code integration:{org}:{provider}}, {@code grant:{org}:{profile}},
 * {@code epoch:{org}}, {@code task:{task_id}}, {@code origin:{conversation_id}} and the notifier's
 * {@code notify:{org}:{profile}:{tool_name}} ({@code *} for any profile or tool). The last part of a kind takes the
 * rest of the key, so a task or conversation id, or a tool name, may itself hold colons.
 *
 * <p>The static builders ({@link #toolKey} and its siblings) are the one place a key's text is spelled: every writer
 * and reader of the policy topic builds keys with them. They do not validate: a reader looks up whatever a proposal
 * names, and a key that no writer could have written simply reads as absent (fail closed). Writers that take a key
 * from a user validate it with {@link #parse} or {@link #of}.
 */
public record PolicyKey(Kind kind, List<String> parts) {

    private static final Pattern PART = Pattern.compile("[^\\s:]+");
    private static final Pattern LAST_PART = Pattern.compile("\\S+");

    /** The policy kinds and how many parts their key has after the kind. */
    public enum Kind {
        TOOL("tool", "provider", "tool_name"),
        INTEGRATION("integration", "org_id", "provider"),
        GRANT("grant", "org_id", "profile_id"),
        EPOCH("epoch", "org_id"),
        TASK("task", "task_id"),
        ORIGIN("origin", "conversation_id"),
        /** Who the notifier tells that an action waits; read by the notifier only ({@link NotificationRoutes}). */
        NOTIFY("notify", "org_id", "profile_id", "tool_name");

        private final String prefix;
        private final List<String> partFields;

        Kind(String prefix, String... partFields) {
            this.prefix = prefix;
            this.partFields = List.of(partFields);
        }

        public String prefix() {
            return prefix;
        }

        /** The body fields that the key's parts repeat, in key order. */
        public List<String> partFields() {
            return partFields;
        }

        public String shape() {
            StringBuilder shape = new StringBuilder(prefix);
            partFields.forEach(p -> shape.append(":{").append(p).append('}'));
            return shape.toString();
        }

        public static Kind of(String prefix) {
            for (Kind kind : values()) {
                if (kind.prefix.equals(prefix)) {
                    return kind;
                }
            }
            throw new IllegalArgumentException("unknown policy kind '" + prefix + "' (one of "
                    + Arrays.stream(values()).map(Kind::prefix).toList() + ")");
        }
    }

    public PolicyKey {
        parts = List.copyOf(parts);
        if (parts.size() != kind.partFields.size()) {
            throw new IllegalArgumentException("policy key must be " + kind.shape());
        }
        for (int i = 0; i < parts.size(); i++) {
            boolean last = i == parts.size() - 1;
            if (!(last ? LAST_PART : PART).matcher(parts.get(i)).matches()) {
                throw new IllegalArgumentException("policy key must be " + kind.shape() + ": "
                        + kind.partFields.get(i) + " is empty, has white space" + (last ? "" : " or a colon"));
            }
        }
    }

    /** A validated key of {@code kind} with {@code parts} in key order. */
    public static PolicyKey of(Kind kind, String... parts) {
        return new PolicyKey(kind, Arrays.asList(parts));
    }

    /** {@code tool:{provider}:{tool_name}}: a tool's trusted descriptor. */
    public static String toolKey(String provider, String toolName) {
        return Kind.TOOL.prefix + ":" + provider + ":" + toolName;
    }

    /** {@code integration:{org}:{provider}}: whether an org's integration with a provider is on. */
    public static String integrationKey(String org, String provider) {
        return Kind.INTEGRATION.prefix + ":" + org + ":" + provider;
    }

    /** {@code grant:{org}:{profile}}: the tools a profile of an org is granted. */
    public static String grantKey(String org, String profile) {
        return Kind.GRANT.prefix + ":" + org + ":" + profile;
    }

    /** {@code epoch:{org}}: an org's authorization epoch. */
    public static String epochKey(String org) {
        return Kind.EPOCH.prefix + ":" + org;
    }

    /** {@code task:{task_id}}: a task's version, status and owning org. */
    public static String taskKey(String taskId) {
        return Kind.TASK.prefix + ":" + taskId;
    }

    /** {@code origin:{conversation_id}}: a conversation's origin state. */
    public static String originKey(String conversationId) {
        return Kind.ORIGIN.prefix + ":" + conversationId;
    }

    /**
     * {@code notify:{org}:{profile}:{tool_name}}: a notification route; {@link NotificationRoutes#ANY} ({@code *})
     * for any profile or any tool.
     */
    public static String notifyKey(String org, String profile, String toolName) {
        return Kind.NOTIFY.prefix + ":" + org + ":" + profile + ":" + toolName;
    }

    /** Parses and validates {@code key}. */
    public static PolicyKey parse(String key) {
        if (key == null || key.indexOf(':') < 0) {
            throw new IllegalArgumentException("policy key must be kind:part[:part], was '" + key + "'");
        }
        int colon = key.indexOf(':');
        Kind kind = Kind.of(key.substring(0, colon));
        String rest = key.substring(colon + 1);
        int count = kind.partFields.size();
        String[] parts = count == 1 ? new String[] {rest} : rest.split(":", count);
        if (parts.length != count) {
            throw new IllegalArgumentException("policy key must be " + kind.shape() + ", was '" + key + "'");
        }
        return new PolicyKey(kind, Arrays.asList(parts));
    }

    @Override
    public String toString() {
        return kind.prefix + ":" + String.join(":", parts);
    }
}
