package io.actiongate.node;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The roles of ARCHITECTURE.md section 1 that one process may run. {@code all} is the three that process actions;
 * the approval service ({@code approver}) is named on its own: it is a human-facing web service with its own
 * identity provider, signing key and public URL, deployed apart from the workers.
 */
public enum Role {
    GATE, EXECUTOR, RECONCILER, APPROVER;

    /** What {@code all} means. */
    public static final Set<Role> ALL = Set.copyOf(EnumSet.of(GATE, EXECUTOR, RECONCILER));

    /** Parses {@code gate,executor}, {@code all}; throws {@link IllegalArgumentException} naming a bad entry. */
    public static Set<Role> parse(String roles) {
        if (roles == null || roles.isBlank()) {
            throw new IllegalArgumentException("--roles needs at least one of gate, executor, reconciler, approver "
                    + "or all");
        }
        EnumSet<Role> parsed = EnumSet.noneOf(Role.class);
        for (String part : roles.split(",")) {
            String name = part.strip().toUpperCase(Locale.ROOT);
            if (name.equals("ALL")) {
                parsed.addAll(ALL);
                continue;
            }
            try {
                parsed.add(Role.valueOf(name));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown role '" + part.strip()
                        + "' (expected gate, executor, reconciler, approver or all)", e);
            }
        }
        return parsed;
    }
}
