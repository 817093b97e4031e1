package io.actiongate.dev;

import java.util.ArrayList;
import java.util.List;

/**
 * The components {@code actiongate dev} starts after the broker and topics, in order: add yours with one line.
 * Public for the end-to-end tests that run exactly what {@code dev} runs (approver-it's MCP client test), and for
 * the benchmark, which measures it.
 */
public final class DevComponents {

    private DevComponents() {
    }

    public static List<DevComponent> defaults() {
        List<DevComponent> components = new ArrayList<>();
        DevStack stack = new DevStack(java.util.Map.of(), true);
        components.add(stack);
        // the gateway's WAITING_APPROVAL answers link to the review page of the approval service dev runs
        components.add(new DevMcpGateway(() -> stack.approver().publicUrl() + "/review/{task_id}/{tool_call_id}",
                () -> stack.sandboxes().mcp(), stack::identityProvider));
        return components;
    }
}
