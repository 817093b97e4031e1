package io.actiongate.node;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The roles of docs/contract.md section 1 ("Roles") that one process may run. {@code all} is the three that process actions;
 * the approval service ({@code approver}), the notifier ({@code notifier}) and the MCP gateway ({@code mcp-gateway}) are
 * named on their own: the approver is a human-facing web service with its own identity provider, signing key and
 * public URL, the notifier needs its destinations and their secrets, and the gateway needs its upstream servers and
 * the tool hosts' tokens configured.
 */
public enum Role {
    GATE, EXECUTOR, RECONCILER, APPROVER,
    /** The notifier (module notifier): tells reviewers that an action waits; after the approver, whose URL it links. */
    NOTIFIER,
    /** The MCP gateway (module mcp-gateway), named {@code mcp-gateway}. */
    MCP_GATEWAY;

    /** What {@code all} means. */
    public static final Set<Role> ALL = Set.copyOf(EnumSet.of(GATE, EXECUTOR, RECONCILER));

    private static final String EXPECTED = "gate, executor, reconciler, approver, notifier, mcp-gateway or all";

    /**
     * Parses {@code gate,executor}, {@code all}, {@code all,approver}, {@code mcp-gateway}; throws
     * {@link IllegalArgumentException} naming a bad entry.
     */
    public static Set<Role> parse(String roles) {
        if (roles == null || roles.isBlank()) {
            throw new IllegalArgumentException("--roles needs at least one of " + EXPECTED);
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
                throw new IllegalArgumentException("unknown role '" + part.strip() + "' (expected " + EXPECTED + ")",
                        e);
            }
        }
        return parsed;
    }
}
