package io.actiongate.policy;

import java.util.Optional;

import io.actiongate.avro.AuthorizationEpoch;
import io.actiongate.avro.Grant;
import io.actiongate.avro.Integration;
import io.actiongate.avro.OriginState;
import io.actiongate.avro.TaskState;
import io.actiongate.avro.ToolDescriptor;

/**
 * Every policy record one action depends on, each read once from the global store ({@link PolicyLookup#snapshot}, or {@link PolicyTopicReader#snapshot}).
 * A record is decided on one snapshot, so a policy update landing between two lookups can neither make a check
 * see two versions of the policy nor throw on the stream thread. Absent evidence is empty.
 * {@code defaultOrg} is the configured owner of tasks and origins written without {@code org_id}, or null.
 */
public record PolicySnapshot(
        Optional<ToolDescriptor> tool,
        Optional<Integration> integration,
        Optional<Grant> grant,
        Optional<TaskState> task,
        Optional<OriginState> origin,
        Optional<AuthorizationEpoch> epoch,
        String defaultOrg) {

    /** Why {@code orgId} may not take a key under this snapshot's task, or empty when it owns it. */
    public Optional<Rejection> ownership(String orgId) {
        return TaskOwnership.refusal(orgId, task, defaultOrg);
    }

    /** Whether this snapshot's origin is present and owned by {@code orgId}. */
    public boolean originOwnedBy(String orgId) {
        return origin.isPresent() && TaskOwnership.owns(orgId, origin.get(), defaultOrg);
    }
}
