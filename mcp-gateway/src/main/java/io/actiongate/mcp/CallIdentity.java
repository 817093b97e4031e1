package io.actiongate.mcp;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.actiongate.digest.Digests;
import io.actiongate.digest.Jcs;

/**
 * The action key of a gated call (docs/contract.md section 6, "Identity of a call"). The task is the request's
 * {@code X-ActionGate-Task-Id} header, else the task the access token names, else the org's session task. The call
 * id is the call's {@code _meta.tool_call_id} only when the header named the task (that host owns the ids under its
 * tasks); otherwise it is derived from the host, the MCP session, the task, the tool, the arguments and the id the
 * call gave, so a retry in the same session is the same action and the same call in another session another one.
 */
final class CallIdentity {

    /** Where the task came from. */
    enum TaskSource { HEADER, TOKEN, SESSION_TASK, NONE }

    /** The task of a request and where it came from; {@code taskId} is null for {@link TaskSource#NONE}. */
    record Task(String taskId, TaskSource source) {
    }

    static final String ORG_PLACEHOLDER = "{org_id}";
    private static final ObjectMapper JSON = new ObjectMapper();

    private CallIdentity() {
    }

    /**
     * @param header      the {@code X-ActionGate-Task-Id} header, or null
     * @param tokenTask   the task the access token names, or null
     * @param sessionTask {@code mcp.gateway.session.task} ({@code {org_id}} to fill in), empty for none
     */
    static Task task(HostIdentity host, Object header, Object tokenTask, String sessionTask) {
        if (header instanceof String h) {
            return new Task(h, TaskSource.HEADER);
        }
        if (tokenTask instanceof String t) {
            return new Task(t, TaskSource.TOKEN);
        }
        if (sessionTask != null && !sessionTask.isBlank()) {
            return new Task(sessionTask.replace(ORG_PLACEHOLDER, host.orgId()), TaskSource.SESSION_TASK);
        }
        return new Task(null, TaskSource.NONE);
    }

    /**
     * The call id: {@code _meta.tool_call_id} as given when the header named the task, else
     * {@code mcp-} + the first 40 hex digits of SHA-256(JCS({org_id, principal_id, profile_id, session, task_id, tool,
     * arguments, tool_call_id})).
     */
    static String callId(HostIdentity host, Task task, String session, String tool, Map<String, Object> arguments,
            Map<String, Object> meta) {
        Optional<String> given = Optional.ofNullable(meta == null ? null : meta.get(GatewayTools.CALL_ID_META))
                .map(Object::toString);
        if (task.source() == TaskSource.HEADER && given.isPresent()) {
            return given.get();
        }
        ObjectNode call = JSON.createObjectNode();
        call.put("org_id", host.orgId());
        call.put("principal_id", host.principalId());
        call.put("profile_id", host.profileId());
        call.put("session", session);
        call.put("task_id", task.taskId());
        call.put("tool", tool);
        call.set("arguments", JSON.valueToTree(arguments));
        call.put("tool_call_id", given.orElse(null));
        String hex = Digests.sha256Hex(Jcs.canonicalize(call).getBytes(StandardCharsets.UTF_8));
        return "mcp-" + hex.substring(0, 40);
    }
}
