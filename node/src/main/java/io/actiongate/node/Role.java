package io.actiongate.node;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/** The roles of docs/contract.md section 1 that one process may run. */
public enum Role {
    GATE, EXECUTOR, RECONCILER;

    /** Parses {@code gate,executor}, {@code all}; throws {@link IllegalArgumentException} naming a bad entry. */
    public static Set<Role> parse(String roles) {
        if (roles == null || roles.isBlank()) {
            throw new IllegalArgumentException("--roles needs at least one of gate, executor, reconciler or all");
        }
        EnumSet<Role> parsed = EnumSet.noneOf(Role.class);
        for (String part : roles.split(",")) {
            String name = part.strip().toUpperCase(Locale.ROOT);
            if (name.equals("ALL")) {
                parsed.addAll(EnumSet.allOf(Role.class));
                continue;
            }
            try {
                parsed.add(Role.valueOf(name));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown role '" + part.strip()
                        + "' (expected gate, executor, reconciler or all)", e);
            }
        }
        return parsed;
    }
}
