package io.actiongate.policy;

import java.util.Optional;

import io.actiongate.avro.AuthorizationEpoch;
import io.actiongate.avro.Grant;
import io.actiongate.avro.Integration;
import io.actiongate.avro.LifecycleStatus;
import io.actiongate.avro.OriginState;
import io.actiongate.avro.TaskState;
import io.actiongate.avro.ToolDescriptor;

/**
 * Typed reads of the policy by {@link PolicyKey}, the same over every source of decoded policy bodies: the gate's
 * global store ({@link PolicyLookup}) and the topic followed without Kafka Streams ({@link PolicyTopicReader}). A
 * record that is missing, does not decode or holds another kind of body is absent: absent evidence fails closed.
 */
public interface PolicyBodies {

    /** The decoded body under {@code key} when it is a {@code type}, else empty. */
    <T> Optional<T> body(String key, Class<T> type);

    /** The owner of tasks and origins written without org_id ({@code gate.task.default.org}), or null. */
    String defaultOrg();

    default Optional<ToolDescriptor> tool(String provider, String toolName) {
        return body(PolicyKey.toolKey(provider, toolName), ToolDescriptor.class);
    }

    /** The schema hash the operator trusted for the tool (its descriptor's {@code schema_hash}), or empty. */
    default Optional<String> toolSchemaHash(String provider, String toolName) {
        return tool(provider, toolName).map(ToolDescriptor::getSchemaHash);
    }

    default Optional<Integration> integration(String org, String provider) {
        return body(PolicyKey.integrationKey(org, provider), Integration.class);
    }

    default Optional<Grant> grant(String org, String profile) {
        return body(PolicyKey.grantKey(org, profile), Grant.class);
    }

    default Optional<AuthorizationEpoch> epochRecord(String org) {
        return body(PolicyKey.epochKey(org), AuthorizationEpoch.class);
    }

    default Optional<TaskState> task(String taskId) {
        return body(PolicyKey.taskKey(taskId), TaskState.class);
    }

    default Optional<OriginState> origin(String conversationId) {
        return conversationId == null ? Optional.empty()
                : body(PolicyKey.originKey(conversationId), OriginState.class);
    }

    /** Whether the task is {@code ACTIVE}; empty for a task the policy does not know. */
    default Optional<Boolean> taskActive(String taskId) {
        return task(taskId).map(t -> t.getStatus() == LifecycleStatus.ACTIVE);
    }

    /** Whether the conversation's origin is {@code ACTIVE}; empty for an origin the policy does not know. */
    default Optional<Boolean> originActive(String conversationId) {
        return origin(conversationId).map(o -> o.getStatus() == LifecycleStatus.ACTIVE);
    }

    /** Every record {@code a} depends on, each read once: decide a record on this, not on lookups. */
    default PolicySnapshot snapshot(CheckedAction a) {
        CheckedAction.Origin origin = a.origin();
        return snapshot(a.provider(), a.toolName(), a.orgId(), a.profileId(), a.taskId(),
                origin == null ? null : origin.conversationId());
    }

    /** Every record an action of these coordinates depends on, each read once: decide a record on this. */
    default PolicySnapshot snapshot(String provider, String toolName, String orgId, String profileId, String taskId,
                                    String conversationId) {
        return new PolicySnapshot(tool(provider, toolName), integration(orgId, provider), grant(orgId, profileId),
                task(taskId), origin(conversationId), epochRecord(orgId), defaultOrg());
    }
}
