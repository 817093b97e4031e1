package io.actiongate.pipeline;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.actiongate.avro.AuthorizationEpoch;
import io.actiongate.avro.Grant;
import io.actiongate.avro.GrantMode;
import io.actiongate.avro.Integration;
import io.actiongate.avro.LifecycleStatus;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.TaskState;
import io.actiongate.avro.ToolDescriptor;

/**
 * The policy the pipeline ITs publish: one org's epoch 1, its active task at version 1, the profile
 * {@code chat-default} granted the tool, the org's webhook integration, and the test's own descriptor of the tool.
 */
final class PipelinePolicy {

    private PipelinePolicy() {
    }

    static Map<String, PolicyRecord> records(String org, String task, ToolDescriptor tool) {
        Map<String, PolicyRecord> policy = new LinkedHashMap<>();
        policy.put("epoch:" + org, record("epoch", AuthorizationEpoch.newBuilder().setOrgId(org).setEpoch(1).build()));
        policy.put("task:" + task, record("task", TaskState.newBuilder().setTaskId(task).setVersion(1)
                .setStatus(LifecycleStatus.ACTIVE).setOrgId(org).build()));
        policy.put("grant:" + org + ":chat-default", record("grant", Grant.newBuilder().setOrgId(org)
                .setProfileId("chat-default").setTools(List.of(tool.getToolName())).setMode(GrantMode.FULL_ACCESS)
                .setChatEnabled(true).build()));
        policy.put("integration:" + org + ":" + tool.getProvider(), record("integration", Integration.newBuilder()
                .setOrgId(org).setProvider(tool.getProvider()).setEnabled(true).setScopes(List.of()).build()));
        policy.put("tool:" + tool.getProvider() + ":" + tool.getToolName(), record("tool", tool));
        return policy;
    }

    private static PolicyRecord record(String kind, Object body) {
        return PolicyRecord.newBuilder().setKind(kind).setBody(body).build();
    }
}
