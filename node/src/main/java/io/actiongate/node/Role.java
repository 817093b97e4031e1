package io.actiongate.node;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/** The roles of ARCHITECTURE.md section 1 that one process may run. */
public enum Role {
    GATE, EXECUTOR, RECONCILER,
    /**
     * The MCP gateway (module mcp-gateway): named explicitly ({@code mcp-gateway}), never part of {@code all}, since it
     * needs its upstream servers and the tool hosts' tokens configured.
     */
    MCP_GATEWAY;

    private static final Set<Role> ALL = EnumSet.of(GATE, EXECUTOR, RECONCILER);

    /**
     * Parses {@code gate,executor}, {@code all}, {@code mcp-gateway}; throws {@link IllegalArgumentException} naming
     * a bad entry.
     */
    public static Set<Role> parse(String roles) {
        if (roles == null || roles.isBlank()) {
            throw new IllegalArgumentException(
                    "--roles needs at least one of gate, executor, reconciler, mcp-gateway or all");
        }
        EnumSet<Role> parsed = EnumSet.noneOf(Role.class);
        for (String part : roles.split(",")) {
            String name = part.strip().toUpperCase(Locale.ROOT).replace('-', '_');
            if (name.equals("ALL")) {
                parsed.addAll(ALL);
                continue;
            }
            try {
                parsed.add(Role.valueOf(name));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown role '" + part.strip()
                        + "' (expected gate, executor, reconciler, mcp-gateway or all)", e);
            }
        }
        return parsed;
    }
}
