package io.actiongate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

/** docs/contract.md section 6, "Identity of a call": where the task comes from and how a call id is derived. */
class CallIdentityTest {

    private static final HostIdentity HOST = new HostIdentity("user-1", "acme", "chat-default");
    private static final Map<String, Object> ARGS = Map.of("to", "a@example.com", "body", "x");
    private static final CallIdentity.Task SESSION_TASK = CallIdentity.task(HOST, null, null, "mcp-{org_id}");

    private static String id(HostIdentity host, CallIdentity.Task task, String session, Map<String, Object> args,
            Map<String, Object> meta) {
        return CallIdentity.callId(host, task, session, "send_email", args, meta);
    }

    @Test
    void shouldTakeTheTaskFromTheHeaderThenTheTokenThenTheOrgsSessionTask() {
        assertThat(CallIdentity.task(HOST, "T-h", "T-t", "mcp-{org_id}"))
                .isEqualTo(new CallIdentity.Task("T-h", CallIdentity.TaskSource.HEADER));
        assertThat(CallIdentity.task(HOST, null, "T-t", "mcp-{org_id}"))
                .isEqualTo(new CallIdentity.Task("T-t", CallIdentity.TaskSource.TOKEN));
        assertThat(SESSION_TASK).isEqualTo(new CallIdentity.Task("mcp-acme", CallIdentity.TaskSource.SESSION_TASK));
        assertThat(CallIdentity.task(HOST, null, null, "").source()).isEqualTo(CallIdentity.TaskSource.NONE);
    }

    @Test
    void shouldBeTheSameActionForTheSameCallInTheSameSessionWhateverTheArgumentOrder() {
        String a = id(HOST, SESSION_TASK, "s-1", ARGS, null);
        assertThat(a).startsWith("mcp-").hasSize(44);
        assertThat(id(HOST, SESSION_TASK, "s-1", Map.of("body", "x", "to", "a@example.com"), Map.of())).isEqualTo(a);
        assertThat(id(HOST, SESSION_TASK, "s-1", Map.of("to", "b@example.com", "body", "x"), null)).isNotEqualTo(a);
    }

    @Test
    void shouldBeAnotherActionInAnotherSessionEvenWithTheSameGivenId() {
        // the issue: the same message a week later, in another conversation, must not find the old action
        assertThat(id(HOST, SESSION_TASK, "s-2", ARGS, null)).isNotEqualTo(id(HOST, SESSION_TASK, "s-1", ARGS, null));
        Map<String, Object> given = Map.of("tool_call_id", "call_0");
        assertThat(id(HOST, SESSION_TASK, "s-2", ARGS, given)).isNotEqualTo(id(HOST, SESSION_TASK, "s-1", ARGS, given))
                .isNotEqualTo("call_0");
        assertThat(id(HOST, SESSION_TASK, "s-1", ARGS, given)).isNotEqualTo(id(HOST, SESSION_TASK, "s-1", ARGS, null));
    }

    @Test
    void shouldUseTheGivenIdVerbatimOnlyUnderATaskTheHeaderNamed() {
        CallIdentity.Task header = CallIdentity.task(HOST, "T-1", null, "mcp-{org_id}");
        assertThat(id(HOST, header, "s-1", ARGS, Map.of("tool_call_id", "c-9"))).isEqualTo("c-9");
        assertThat(id(HOST, header, "s-2", ARGS, Map.of("tool_call_id", "c-9"))).isEqualTo("c-9");
        // without a given id even a header task derives, with the session in it
        assertThat(id(HOST, header, "s-1", ARGS, null)).isNotEqualTo(id(HOST, header, "s-2", ARGS, null));
        CallIdentity.Task token = CallIdentity.task(HOST, null, "T-1", "");
        assertThat(id(HOST, token, "s-1", ARGS, Map.of("tool_call_id", "c-9"))).startsWith("mcp-");
    }

    @Test
    void shouldDeriveAnotherIdForTheSameCallOfAnotherHost() {
        String a = id(HOST, SESSION_TASK, "s-1", ARGS, null);
        assertThat(id(new HostIdentity("user-1", "globex", "chat-default"), SESSION_TASK, "s-1", ARGS, null))
                .isNotEqualTo(a);
        assertThat(id(new HostIdentity("user-2", "acme", "chat-default"), SESSION_TASK, "s-1", ARGS, null))
                .isNotEqualTo(a);
        assertThat(id(new HostIdentity("user-1", "acme", "admin"), SESSION_TASK, "s-1", ARGS, null)).isNotEqualTo(a);
    }
}
