package io.actiongate.scan;

import java.util.List;
import java.util.Locale;

/**
 * Literals at least one of which every match of a detector contains. Checking them with {@link String#indexOf}
 * (vectorised in the JDK) lets a detector skip its regex on the vast majority of inputs, so the cost of a scan stays
 * close to one fast pass per detector. A hint check may pass when the regex then finds nothing; it never fails when
 * the regex would match.
 */
record Hints(List<String> literals, boolean ignoreCase) {

    static final Hints NONE = new Hints(List.of(), false);

    Hints {
        literals = List.copyOf(literals);
        if (ignoreCase) {
            literals = literals.stream().map(s -> s.toLowerCase(Locale.ROOT)).toList();
        }
    }

    static Hints anyOf(String... literals) {
        return new Hints(List.of(literals), false);
    }

    /** For {@code (?i)} patterns, which fold ASCII case only: the text is lower-cased before the check. */
    static Hints anyOfIgnoringCase(String... literals) {
        return new Hints(List.of(literals), true);
    }

    boolean present(String text) {
        if (literals.isEmpty()) {
            return true;
        }
        String t = ignoreCase ? text.toLowerCase(Locale.ROOT) : text;
        for (String literal : literals) {
            if (t.contains(literal)) {
                return true;
            }
        }
        return false;
    }
}
