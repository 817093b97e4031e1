package io.actiongate.chaos.check;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * What the run's upstream MCP server executed: one entry per post that reached its apply step (the sandbox MCP
 * server's effect log, one JSON line each, never deduplicated), with the idempotency key and the action key it
 * carried, and whether it made a new effect. Read by the checker after the run.
 */
public record McpLog(List<Execution> executions) {

    /** One tool execution at the upstream. */
    public record Execution(String idempotencyKey, String actionKey, boolean newEffect, String id) {
    }

    public static final McpLog NONE = new McpLog(List.of());

    public McpLog {
        executions = List.copyOf(executions);
    }

    /** Reads the effect log (a missing file: nothing was executed). */
    public static McpLog read(Path file) throws IOException {
        if (!Files.exists(file)) {
            return NONE;
        }
        ObjectMapper json = new ObjectMapper();
        List<Execution> list = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode n = json.readTree(line);
            String action = n.path("action_key").isTextual() ? n.path("action_key").asText()
                    : n.path("meta_action_key").asText(null);
            list.add(new Execution(n.path("idempotency_key").asText(), action, n.path("new_effect").asBoolean(),
                    n.path("id").asText(null)));
        }
        return new McpLog(list);
    }

    /**
     * The same executions as provider-log entries per idempotency key (requests = applied = executions, effects =
     * new effects), so that checks (a), (c), (i) and (m) see the upstream's effects as they see the webhook's.
     */
    public Map<String, ProviderLog.Entry> asProviderEntries() {
        Map<String, int[]> counts = new LinkedHashMap<>();
        for (Execution e : executions) {
            int[] c = counts.computeIfAbsent(e.idempotencyKey(), k -> new int[2]);
            c[0]++;
            if (e.newEffect()) {
                c[1]++;
            }
        }
        Map<String, ProviderLog.Entry> entries = new LinkedHashMap<>();
        counts.forEach((key, c) -> entries.put(key, new ProviderLog.Entry(c[0], c[0], c[1], 0)));
        return entries;
    }
}
