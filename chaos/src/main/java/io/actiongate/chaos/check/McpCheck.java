package io.actiongate.chaos.check;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Check (n): no duplicate effect for any MCP call. Every call the load issued through the MCP gateway (its action
 * key, {@code task/tool_call_id}, the identity the host resends) maps to at most one effect at the upstream, counted
 * from the upstream's own log over every idempotency key and every execution (a key executed twice is two effects
 * for a server without an idempotency store); every execution carries the action key of a call the load issued;
 * and every effect's idempotency key is carried by the reservations of exactly one action, that same call.
 * Approvals of these effects are check (m)'s (the upstream's effects join the provider log).
 */
final class McpCheck {

    private McpCheck() {
    }

    static void run(McpLog log, Set<String> mcpCalls, Map<String, Set<String>> keyOwners, CheckResult result) {
        result.count("(n) MCP calls issued by the load", mcpCalls.size());
        result.count("(n) MCP tool executions at the upstream", log.executions().size());
        Map<String, Set<String>> keysByCall = new HashMap<>();
        Map<String, Integer> executionsByCall = new HashMap<>();
        Map<String, String> callOfKey = new LinkedHashMap<>();
        for (McpLog.Execution e : log.executions()) {
            String call = e.actionKey();
            if (call == null || !mcpCalls.contains(call)) {
                result.violation("(n) upstream execution of key " + e.idempotencyKey() + " carries action "
                        + call + ", no MCP call the load issued");
                continue;
            }
            keysByCall.computeIfAbsent(call, k -> new TreeSet<>()).add(e.idempotencyKey());
            executionsByCall.merge(call, 1, Integer::sum);
            String before = callOfKey.putIfAbsent(e.idempotencyKey(), call);
            if (before != null && !before.equals(call)) {
                result.violation("(n) idempotency key " + e.idempotencyKey() + " executed for two MCP calls, "
                        + before + " and " + call);
            }
        }
        long withEffect = 0;
        for (String call : mcpCalls) {
            int executions = executionsByCall.getOrDefault(call, 0);
            if (executions == 0) {
                continue;
            }
            withEffect++;
            if (executions > 1) {
                result.duplicate("(n) MCP call " + call + " executed " + executions + " times at the upstream "
                        + "(keys " + keysByCall.get(call) + ")", executions - 1);
            }
        }
        result.count("(n) MCP calls with an effect at the upstream", withEffect);
        long mapped = 0;
        for (Map.Entry<String, String> e : callOfKey.entrySet()) {
            Set<String> owners = keyOwners.getOrDefault(e.getKey(), Set.of());
            if (owners.size() != 1 || !owners.contains(e.getValue())) {
                result.violation("(n) MCP effect of " + e.getValue() + " under key " + e.getKey() + " maps to the "
                        + "reservations of " + (owners.isEmpty() ? "no action" : owners) + ", not of exactly that one");
                if (owners.isEmpty()) {
                    result.lost(1);
                }
            } else {
                mapped++;
            }
        }
        result.count("(n) MCP effects mapped to exactly one reservation", mapped);
    }
}
