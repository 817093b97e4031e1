package io.actiongate.acls;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

import io.actiongate.approver.ApproverConfig;
import io.actiongate.approver.state.KafkaState;
import io.actiongate.config.CommonConfig;
import io.actiongate.executor.ExecutorConfig;
import io.actiongate.notifier.NotifierConfig;
import io.actiongate.reconciler.ReconcilerConfig;
import io.actiongate.storage.ObjectStoreConfig;
import io.actiongate.topics.TopicSpec;
import io.actiongate.topics.Topics;

/**
 * The Kafka ACLs each actiongate role needs, and no more: the one definition that {@code actiongate acls} prints and
 * applies, the docs' table describes and the secured-cluster test grants. Names come from the same configuration the
 * role runs with ({@code topic.prefix}, {@code application.id}, {@code executor.group.id},
 * {@code reconciler.group.id}, {@code storage.enabled}). {@code READ} and {@code WRITE} on a topic imply
 * {@code DESCRIBE}; idempotent producers need no cluster ACL (Kafka 3.0 and later).
 */
public final class RoleAcls {

    /** A role as {@code --role} names it. */
    public enum Role {
        /** The gate's Kafka Streams application (exactly-once v2): inputs, outputs, its internal topics. */
        GATE("gate"),
        /** Reads reservations, writes outcomes (with attachments: reads policy and receipts for the cleaner). */
        EXECUTOR("executor"),
        /** Reads unknown outcomes, writes reconciliations. */
        RECONCILER("reconciler"),
        /** The approval service and {@code actiongate decide}: reads the action history, writes decisions only. */
        APPROVER("approver"),
        /**
         * The notifier: reads receipts, proposals and policy (its routes), and its own state topic of claims, which
         * it creates.
         */
        NOTIFIER("notifier"),
        /** The MCP gateway: proposes, reads receipts, conflicts and policy (tool descriptors). */
        MCP_GATEWAY("mcp-gateway"),
        /** A tool host: the client library and {@code actiongate propose}; proposes, reads receipts and conflicts. */
        TOOL_HOST("tool-host"),
        /**
         * The operator: {@code topics create}, {@code policy put/delete}, {@code mcp import}, {@code receipts}.
         */
        OPERATOR("operator");

        private final String id;

        Role(String id) {
            this.id = id;
        }

        public String id() {
            return id;
        }

        public static Role parse(String id) {
            for (Role r : values()) {
                if (r.id.equals(id.strip().toLowerCase(Locale.ROOT))) {
                    return r;
                }
            }
            throw new IllegalArgumentException("unknown role '" + id + "'; one of " + ids());
        }

        public static String ids() {
            return Arrays.stream(values()).map(Role::id).collect(Collectors.joining(", "));
        }
    }

    private RoleAcls() {
    }

    /** The ALLOW bindings of {@code role} for {@code principal} ({@code User:NAME}) under {@code config}. */
    public static List<AclBinding> bindings(Role role, String principal, Map<String, String> config) {
        requirePrincipal(principal);
        Names n = Names.of(config);
        Acc acc = new Acc(principal);
        switch (role) {
            case GATE -> {
                acc.read(n.topic(Topics.PROPOSALS), n.topic(Topics.DECISIONS), n.topic(Topics.OUTCOMES),
                        n.topic(Topics.RECONCILIATIONS), n.topic(Topics.POLICY));
                acc.write(n.topic(Topics.RECEIPTS), n.topic(Topics.ATTEMPTS), n.topic(Topics.UNKNOWN_OUTCOMES),
                        n.topic(Topics.CONFLICTS), n.topic(Topics.DEAD_LETTERS));
                // internal topics (changelogs, repartition hops) <application.id>-...: created, read, written,
                // purged by Streams
                for (AclOperation op : List.of(AclOperation.CREATE, AclOperation.READ, AclOperation.WRITE,
                        AclOperation.DELETE, AclOperation.DESCRIBE_CONFIGS)) {
                    acc.add(ResourceType.TOPIC, n.internalPrefix(), PatternType.PREFIXED, op);
                }
                acc.add(ResourceType.GROUP, n.applicationId, PatternType.LITERAL, AclOperation.READ);
                // exactly-once v2: one transactional id per stream thread, <application.id>-<process>-<thread>
                acc.add(ResourceType.TRANSACTIONAL_ID, n.internalPrefix(), PatternType.PREFIXED, AclOperation.WRITE);
                acc.add(ResourceType.TRANSACTIONAL_ID, n.internalPrefix(), PatternType.PREFIXED,
                        AclOperation.DESCRIBE);
            }
            case EXECUTOR -> {
                acc.read(n.topic(Topics.ATTEMPTS));
                acc.write(n.topic(Topics.OUTCOMES));
                acc.add(ResourceType.GROUP, n.executorGroup, PatternType.LITERAL, AclOperation.READ);
                if (n.storageEnabled) {
                    acc.read(n.topic(Topics.POLICY), n.topic(Topics.RECEIPTS));
                    acc.add(ResourceType.GROUP, n.executorGroup + "-attachment-cleaner", PatternType.LITERAL,
                            AclOperation.READ);
                }
            }
            case RECONCILER -> {
                acc.read(n.topic(Topics.UNKNOWN_OUTCOMES));
                acc.write(n.topic(Topics.RECONCILIATIONS));
                acc.add(ResourceType.GROUP, n.reconcilerGroup, PatternType.LITERAL, AclOperation.READ);
            }
            case APPROVER -> {
                // conflicts: the review says a conflicting proposal was refused only on the gate's word
                acc.read(n.topic(Topics.PROPOSALS), n.topic(Topics.RECEIPTS), n.topic(Topics.OUTCOMES),
                        n.topic(Topics.RECONCILIATIONS), n.topic(Topics.CONFLICTS));
                acc.write(n.topic(Topics.DECISIONS));
                // its own compacted state (factors, challenges, sessions' changes), created at its first start and
                // shared by every replica
                acc.read(n.approverState);
                acc.write(n.approverState);
                acc.add(ResourceType.TOPIC, n.approverState, PatternType.LITERAL, AclOperation.CREATE);
            }
            case NOTIFIER -> {
                acc.read(n.topic(Topics.RECEIPTS), n.topic(Topics.PROPOSALS), n.topic(Topics.POLICY));
                // its claims and results (one partition), created at its first start and shared by every replica
                acc.read(n.notifierState);
                acc.write(n.notifierState);
                acc.add(ResourceType.TOPIC, n.notifierState, PatternType.LITERAL, AclOperation.CREATE);
            }
            case MCP_GATEWAY -> {
                acc.write(n.topic(Topics.PROPOSALS));
                acc.read(n.topic(Topics.RECEIPTS), n.topic(Topics.CONFLICTS), n.topic(Topics.POLICY));
            }
            case TOOL_HOST -> {
                acc.write(n.topic(Topics.PROPOSALS));
                acc.read(n.topic(Topics.RECEIPTS), n.topic(Topics.CONFLICTS));
            }
            case OPERATOR -> {
                acc.write(n.topic(Topics.POLICY));
                acc.read(n.topic(Topics.RECEIPTS));
                // topics create: make the contract's topics and compare existing ones with their specification
                for (AclOperation op : List.of(AclOperation.CREATE, AclOperation.DESCRIBE,
                        AclOperation.DESCRIBE_CONFIGS)) {
                    acc.add(ResourceType.TOPIC, n.prefix, PatternType.PREFIXED, op);
                }
            }
            default -> throw new IllegalStateException("unhandled role " + role);
        }
        return List.copyOf(acc.bindings);
    }

    /** One line per binding, as {@code kafka-acls.sh --add} takes it. */
    public static List<String> kafkaAclsCommands(List<AclBinding> bindings, String bootstrapServers) {
        List<String> lines = new ArrayList<>();
        for (AclBinding b : bindings) {
            ResourcePattern p = b.pattern();
            String resource = switch (p.resourceType()) {
                case TOPIC -> "--topic '" + p.name() + "'";
                case GROUP -> "--group '" + p.name() + "'";
                case TRANSACTIONAL_ID -> "--transactional-id '" + p.name() + "'";
                case CLUSTER -> "--cluster";
                default -> "--" + p.resourceType().name().toLowerCase(Locale.ROOT) + " '" + p.name() + "'";
            };
            lines.add("kafka-acls.sh --bootstrap-server " + bootstrapServers + " --command-config admin.properties"
                    + " --add --allow-principal '" + b.entry().principal() + "' --operation "
                    + operationName(b.entry().operation()) + " " + resource
                    + (p.patternType() == PatternType.PREFIXED ? " --resource-pattern-type prefixed" : ""));
        }
        return lines;
    }

    /**
     * The docs' table of every role under the default names (and the executor with attachments on): topics read and
     * written, prefixed resources, groups, transactional ids. {@code docs/kafka-security.md} holds it verbatim, and a
     * test keeps it so.
     */
    public static String markdownTable() {
        StringBuilder t = new StringBuilder();
        t.append("| Role (`--role`) | Reads topics | Writes topics | Consumer group (READ) "
                + "| Prefixed resources, topics created |\n");
        t.append("|---|---|---|---|---|\n");
        for (Role role : Role.values()) {
            row(t, role.id(), bindings(role, "User:" + role.id(), Map.of()));
            if (role == Role.EXECUTOR) {
                row(t, role.id() + " with `storage.enabled=true`", bindings(role, "User:" + role.id(),
                        Map.of(ObjectStoreConfig.ENABLED_CONFIG, "true")));
            }
        }
        return t.toString();
    }

    private static void row(StringBuilder t, String role, List<AclBinding> bindings) {
        t.append("| ").append(role).append(" | ")
                .append(literal(bindings, ResourceType.TOPIC, AclOperation.READ)).append(" | ")
                .append(literal(bindings, ResourceType.TOPIC, AclOperation.WRITE)).append(" | ")
                .append(literal(bindings, ResourceType.GROUP, AclOperation.READ)).append(" | ");
        Map<String, List<String>> prefixed = new java.util.LinkedHashMap<>();
        for (AclBinding b : bindings) {
            if (b.pattern().patternType() == PatternType.PREFIXED) {
                prefixed.computeIfAbsent(kind(b.pattern().resourceType()) + " `" + b.pattern().name() + "*`",
                        k -> new ArrayList<>()).add(b.entry().operation().name());
            }
        }
        String cell = prefixed.entrySet().stream().map(e -> e.getKey() + ": " + String.join(", ", e.getValue()))
                .collect(Collectors.joining("; "));
        String creates = literal(bindings, ResourceType.TOPIC, AclOperation.CREATE);
        if (!creates.equals("-")) {
            cell = (cell.isEmpty() ? "" : cell + "; ") + "creates " + creates;
        }
        t.append(cell.isEmpty() ? "-" : cell).append(" |\n");
    }

    private static String literal(List<AclBinding> bindings, ResourceType type, AclOperation op) {
        String names = bindings.stream().filter(b -> b.pattern().patternType() == PatternType.LITERAL
                        && b.pattern().resourceType() == type && b.entry().operation() == op)
                .map(b -> "`" + b.pattern().name() + "`").collect(Collectors.joining(", "));
        return names.isEmpty() ? "-" : names;
    }

    private static String kind(ResourceType type) {
        return switch (type) {
            case TOPIC -> "topics";
            case GROUP -> "groups";
            case TRANSACTIONAL_ID -> "transactional ids";
            default -> type.name().toLowerCase(Locale.ROOT);
        };
    }

    /** One line per binding in the Admin API's terms ({@code Admin.createAcls}). */
    public static String describe(AclBinding b) {
        ResourcePattern p = b.pattern();
        return String.format(Locale.ROOT, "%-8s %-17s %-9s %-16s %s", b.entry().permissionType(),
                b.entry().operation(), p.patternType(), p.resourceType(), p.name());
    }

    private static String operationName(AclOperation op) {
        // kafka-acls.sh spells operations in CamelCase: DescribeConfigs, IdempotentWrite
        String[] words = op.name().toLowerCase(Locale.ROOT).split("_");
        StringBuilder s = new StringBuilder();
        for (String w : words) {
            s.append(Character.toUpperCase(w.charAt(0))).append(w.substring(1));
        }
        return s.toString();
    }

    private static void requirePrincipal(String principal) {
        int colon = principal == null ? -1 : principal.indexOf(':');
        if (colon <= 0 || colon == principal.length() - 1) {
            throw new IllegalArgumentException("principal must look like User:NAME, was '" + principal + "'");
        }
    }

    /** The resource names a deployment's configuration gives. */
    private record Names(String prefix, String applicationId, String executorGroup, String reconcilerGroup,
                         boolean storageEnabled, String approverState, String notifierState) {

        static Names of(Map<String, String> config) {
            CommonConfig common = new CommonConfig(config);
            String internal = internalPrefix(common.applicationId());
            for (String topic : Topics.names(common.topicPrefix())) {
                if (topic.startsWith(internal)) {
                    throw new IllegalArgumentException("application.id '" + common.applicationId() + "' with "
                            + "topic.prefix '" + common.topicPrefix() + "': the gate's prefixed ACLs on '" + internal
                            + "' (its internal topics and transactional ids) would cover the actiongate topic '"
                            + topic + "'; choose names that do not overlap");
                }
            }
            return new Names(common.topicPrefix(), common.applicationId(),
                    valueOrDefault(config, ExecutorConfig.GROUP_ID_CONFIG, ExecutorConfig.CONFIG
                            .configKeys().get(ExecutorConfig.GROUP_ID_CONFIG).defaultValue),
                    valueOrDefault(config, ReconcilerConfig.GROUP_ID_CONFIG, ReconcilerConfig.CONFIG
                            .configKeys().get(ReconcilerConfig.GROUP_ID_CONFIG).defaultValue),
                    Boolean.parseBoolean(config.getOrDefault(ObjectStoreConfig.ENABLED_CONFIG, "false").strip()),
                    valueOrDefault(config, ApproverConfig.STATE_TOPIC,
                            KafkaState.defaultTopic(common.topicPrefix())),
                    valueOrDefault(config, NotifierConfig.STATE_TOPIC,
                            NotifierConfig.defaultStateTopic(common.topicPrefix())));
        }

        String topic(TopicSpec<?, ?> spec) {
            return spec.name(prefix);
        }

        /** What Kafka Streams starts its internal topics and transactional ids with: not another app's id. */
        String internalPrefix() {
            return internalPrefix(applicationId);
        }

        static String internalPrefix(String applicationId) {
            return applicationId + "-";
        }

        private static String valueOrDefault(Map<String, String> config, String key, Object fallback) {
            String v = config.get(key);
            return v == null || v.isBlank() ? String.valueOf(fallback) : v.strip();
        }
    }

    private static final class Acc {
        final String principal;
        final List<AclBinding> bindings = new ArrayList<>();

        Acc(String principal) {
            this.principal = principal;
        }

        void read(String... topics) {
            for (String t : topics) {
                add(ResourceType.TOPIC, t, PatternType.LITERAL, AclOperation.READ);
            }
        }

        void write(String... topics) {
            for (String t : topics) {
                add(ResourceType.TOPIC, t, PatternType.LITERAL, AclOperation.WRITE);
            }
        }

        void add(ResourceType type, String name, PatternType pattern, AclOperation op) {
            bindings.add(new AclBinding(new ResourcePattern(type, name, pattern),
                    new AccessControlEntry(principal, "*", op, AclPermissionType.ALLOW)));
        }
    }
}
