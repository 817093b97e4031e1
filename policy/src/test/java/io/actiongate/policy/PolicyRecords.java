package io.actiongate.policy;

import java.util.List;

import io.actiongate.avro.ApprovalMode;
import io.actiongate.avro.AuthorizationEpoch;
import io.actiongate.avro.Grant;
import io.actiongate.avro.GrantMode;
import io.actiongate.avro.Integration;
import io.actiongate.avro.LifecycleStatus;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.TaskState;
import io.actiongate.avro.ToolDescriptor;
import io.actiongate.serde.AvroSerde;
import io.actiongate.serde.AvroSerdes;

/** Serialised policy records for the tests. */
final class PolicyRecords {

    static final AvroSerde<PolicyRecord> SERDE = AvroSerdes.serde(PolicyRecord.class);

    private PolicyRecords() {
    }

    static ToolDescriptor.Builder toolBuilder(String provider, String name) {
        return ToolDescriptor.newBuilder().setProvider(provider).setToolName(name).setOperation(name)
                .setSchemaHash("sha256:v1").setReadOnlyHint(true).setDestructiveHint(null).setIdempotentHint(null)
                .setOpenWorldHint(null).setApproval(ApprovalMode.NONE).setMaxInputBytes(4096).setEnabled(true);
    }

    static byte[] tool(ToolDescriptor tool) {
        return bytes("tool", tool);
    }

    static byte[] task(String taskId, String org, long version, LifecycleStatus status) {
        return bytes("task", TaskState.newBuilder().setTaskId(taskId).setOrgId(org).setVersion(version)
                .setStatus(status).build());
    }

    static byte[] epoch(String org, long epoch) {
        return bytes("epoch", AuthorizationEpoch.newBuilder().setOrgId(org).setEpoch(epoch).build());
    }

    static byte[] grant(String org, String profile, List<String> tools) {
        return bytes("grant", Grant.newBuilder().setOrgId(org).setProfileId(profile).setTools(tools)
                .setMode(GrantMode.FULL_ACCESS).setChatEnabled(false).build());
    }

    static byte[] integration(String org, String provider, boolean enabled) {
        return bytes("integration", Integration.newBuilder().setOrgId(org).setProvider(provider)
                .setEnabled(enabled).build());
    }

    static byte[] bytes(String kind, Object body) {
        return SERDE.serialize(null, PolicyRecord.newBuilder().setKind(kind).setBody(body).build());
    }
}
