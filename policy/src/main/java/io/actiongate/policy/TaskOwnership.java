package io.actiongate.policy;

import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

import io.actiongate.avro.OriginState;
import io.actiongate.avro.TaskState;
import io.actiongate.contract.ReasonCode;

/**
 * Who owns a task (docs/contract.md, "Who may hold a key"): the org named by its {@code TaskState.org_id}, or for a
 * task written without one (before schema v2) the configured single-tenant default org, or nobody. A proposal may
 * take a key only under a task its own org owns; everything else is refused without holding the key, so no org can
 * occupy, answer for or read another org's action.
 */
public final class TaskOwnership {

    /**
     * The key of the default owner, in the flat configuration every role reads: the gate defines it in its
     * {@code ConfigDef}; the processes that read the policy topic without Kafka Streams read it with
     * {@link #defaultOrg(Map)}, so that they apply the gate's rule.
     */
    public static final String DEFAULT_ORG_CONFIG = "gate.task.default.org";

    /** An org id as the gate accepts it in {@value #DEFAULT_ORG_CONFIG}. */
    public static final Pattern ORG_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

    private TaskOwnership() {
    }

    /**
     * {@value #DEFAULT_ORG_CONFIG} from {@code config}, or null when it is unset or empty (no default owner); throws
     * {@link IllegalArgumentException} naming the key when it is no org id.
     */
    public static String defaultOrg(Map<String, ?> config) {
        Object raw = config.get(DEFAULT_ORG_CONFIG);
        String value = raw == null ? "" : raw.toString().strip();
        if (value.isEmpty()) {
            return null;
        }
        if (!ORG_ID.matcher(value).matches()) {
            throw new IllegalArgumentException(DEFAULT_ORG_CONFIG + ": '" + value + "' is not an org id ("
                    + ORG_ID.pattern() + ") or empty");
        }
        return value;
    }

    /** The owning org of {@code task}, or null when it names none and no default is configured. */
    public static String owner(TaskState task, String defaultOrg) {
        return task.getOrgId() != null ? task.getOrgId() : defaultOrg;
    }

    /** The owning org of {@code origin}, or null when it names none and no default is configured. */
    public static String owner(OriginState origin, String defaultOrg) {
        return origin.getOrgId() != null ? origin.getOrgId() : defaultOrg;
    }

    /**
     * Why {@code orgId} may not take a key under {@code task}, or empty when it owns the task. An unknown task is
     * {@code TASK_VERSION_CHANGED} (absent evidence, as before), a task of another org or of nobody
     * {@code TASK_NOT_OWNED}. Either way the refusal must not hold the key: the owner may not exist yet.
     */
    public static Optional<Rejection> refusal(String orgId, Optional<TaskState> task, String defaultOrg) {
        if (task.isEmpty()) {
            return Optional.of(new Rejection(ReasonCode.TASK_VERSION_CHANGED, "no task state"));
        }
        String owner = owner(task.get(), defaultOrg);
        if (owner == null) {
            return Optional.of(new Rejection(ReasonCode.TASK_NOT_OWNED, "the task names no owning org"));
        }
        if (!owner.equals(orgId)) {
            return Optional.of(new Rejection(ReasonCode.TASK_NOT_OWNED, "the task belongs to another org"));
        }
        return Optional.empty();
    }

    /** Whether {@code orgId} owns {@code origin} (an origin of another org or of nobody never matches). */
    public static boolean owns(String orgId, OriginState origin, String defaultOrg) {
        return orgId != null && orgId.equals(owner(origin, defaultOrg));
    }
}
