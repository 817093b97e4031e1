package io.actiongate.dev;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.actiongate.avro.LifecycleStatus;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.TaskState;
import io.actiongate.cli.commands.PolicyJson;
import io.actiongate.policy.PolicyKey;

/**
 * The demo organisation's policy ({@code io/actiongate/dev/demo-policy.json}): org {@code demo}, profile
 * {@code assistant}, an email tool and a webhook tool that need a human's approval, {@code kubectl} through the cli
 * connector (approval {@code NONE}: only a vector the classifier proves read-only runs without a human), a
 * read-only notes tool that does not, an active task {@code T-1} to try things with, and a notification route that
 * tells the reviewers of every waiting action through the sandbox chat webhook ({@code team}) and the sandbox mailbox
 * {@code reviewers@example.com}.
 */
public final class DemoPolicy {

    public static final String ORG = "demo";
    public static final String PROFILE = "assistant";
    public static final long EPOCH = 1;
    public static final String RESOURCE = "/io/actiongate/dev/demo-policy.json";

    private DemoPolicy() {
    }

    public static List<PolicyJson.Entry> entries() {
        try (InputStream in = DemoPolicy.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + RESOURCE);
            }
            return PolicyJson.fromJson(new ObjectMapper().readTree(in));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the demo policy", e);
        }
    }

    /** The {@code task:{id}} record that makes a new task of the demo org active at version 1. */
    public static PolicyJson.Entry activeTask(String taskId) {
        PolicyRecord record = PolicyRecord.newBuilder()
                .setKind("task")
                .setBody(TaskState.newBuilder().setTaskId(taskId).setVersion(1).setStatus(LifecycleStatus.ACTIVE)
                        .setOrgId(ORG).build())
                .build();
        return new PolicyJson.Entry(PolicyKey.of(PolicyKey.Kind.TASK, taskId), record);
    }
}
