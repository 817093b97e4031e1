package io.actiongate.cli.commands;

import io.actiongate.cli.ExitCodes;

import java.io.PrintWriter;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import io.actiongate.key.ActionKey;

/** {@code actiongate status TASK CALL}: the action's current state from the gate's HTTP surface. */
@Command(name = "status", description = "Show an action's current state.")
public final class StatusCommand extends OperatorCommand implements ExitCodes.Own {

    @Override
    public int[] ownExitCodes() {
        return new int[] {ExitCodes.NOT_FOUND};
    }

    private static final String[] DETAILS = {"reason", "tool_name", "provider", "operation", "action_digest",
        "input_digest", "decision_id", "provider_receipt_id", "resolved_by", "updated_at"};

    @Parameters(index = "0", paramLabel = "TASK") String taskId;
    @Parameters(index = "1", paramLabel = "CALL") String toolCallId;

    @Option(names = "--gate-url", defaultValue = GateClient.DEFAULT_URL, paramLabel = "URL",
            description = "Gate HTTP surface (default: ${DEFAULT-VALUE}).")
    String gateUrl;

    @Mixin
    GateAuthOptions auth = new GateAuthOptions();

    @Option(names = "--json", description = "Print the gate's JSON as it is.")
    boolean json;

    @Override
    int execute() throws Exception {
        ActionKey key = DecideCommand.actionKey(taskId, toolCallId);
        Optional<JsonNode> state = new GateClient(gateUrl, auth.token()).action(key);
        if (state.isEmpty()) {
            throw new CommandFailure("no such action: " + key, CommandFailure.NOT_FOUND, null);
        }
        if (json) {
            out().println(state.get().toString());
        } else {
            summarize(key, state.get(), out());
        }
        out().flush();
        return 0;
    }

    static void summarize(ActionKey key, JsonNode state, PrintWriter out) {
        out.printf("%-20s %s%n", "action:", key);
        out.printf("%-20s %s%n", "status:", text(state, "status"));
        out.printf("%-20s %s%n", "reason_code:", text(state, "reason_code"));
        for (String field : DETAILS) {
            if (state.hasNonNull(field)) {
                out.printf("%-20s %s%n", field + ":", text(state, field));
            }
        }
        JsonNode attempts = state.get("attempts");
        if (attempts != null && attempts.isArray()) {
            out.printf("%-20s %d%n", "attempts:", attempts.size());
            for (JsonNode attempt : attempts) {
                out.printf("  #%s %s dispatched=%s http=%s error=%s%n", text(attempt, "attempt"),
                        text(attempt, "status"), text(attempt, "dispatched"), text(attempt, "http_status"),
                        text(attempt, "error_code"));
            }
        } else if (attempts != null && attempts.isNumber()) {
            out.printf("%-20s %d%n", "attempts:", attempts.asInt());
        }
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? "-" : value.asText();
    }
}
