package io.actiongate.connector.cli;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The flags a command accepts, each spelled as {@code "-n|--namespace="}: aliases separated by {@code |}, a
 * trailing {@code =} when the flag takes a value. Every alias maps to the last (long) spelling. Knowing which
 * flags take a value is what lets the parser tell {@code -n prod get} (flag value, then verb) from a verb.
 */
final class FlagTable {

    record Flag(String name, boolean takesValue) {
    }

    private final Map<String, Flag> flags;

    private FlagTable(Map<String, Flag> flags) {
        this.flags = Map.copyOf(flags);
    }

    static FlagTable of(String... specs) {
        Map<String, Flag> flags = new HashMap<>();
        for (String spec : specs) {
            boolean value = spec.endsWith("=");
            String[] aliases = (value ? spec.substring(0, spec.length() - 1) : spec).split("\\|");
            Flag flag = new Flag(aliases[aliases.length - 1], value);
            for (String alias : aliases) {
                flags.put(alias, flag);
            }
        }
        return new FlagTable(flags);
    }

    /** This table with {@code other}'s entries added; {@code other} wins where both define a spelling. */
    FlagTable with(FlagTable other) {
        Map<String, Flag> merged = new HashMap<>(flags);
        merged.putAll(other.flags);
        return new FlagTable(merged);
    }

    Optional<Flag> find(String spelling) {
        return Optional.ofNullable(flags.get(spelling));
    }
}
