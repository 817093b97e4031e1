package io.actiongate.gate.internal;

import java.util.Optional;

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

    private TaskOwnership() {
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
