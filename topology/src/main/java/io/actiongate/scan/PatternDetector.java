package io.actiongate.scan;

import java.util.Objects;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A detector made of a precompiled pattern and an optional check on one capture group (e.g. "the JWT header decodes
 * to JSON with {@code alg}"). Every candidate match is checked, so a rejected candidate does not hide a later one.
 *
 * <p>Patterns given here must run in linear time: a negative look-behind in front of any leading repeated class (so
 * a long run is tried from its first char only), possessive or bounded quantifiers, and no nested quantifiers over
 * overlapping classes.
 */
final class PatternDetector implements Detector {

    private final String id;
    private final String description;
    private final Pattern pattern;
    private final int group;
    private final Predicate<String> accept;
    private final Hints hints;

    PatternDetector(String id, String description, Pattern pattern, int group, Predicate<String> accept,
                    Hints hints) {
        this.id = Objects.requireNonNull(id, "id");
        this.description = Objects.requireNonNull(description, "description");
        this.pattern = Objects.requireNonNull(pattern, "pattern");
        this.group = group;
        this.accept = Objects.requireNonNull(accept, "accept");
        this.hints = Objects.requireNonNull(hints, "hints");
    }

    /** A detector that fires on any match of {@code regex}; every match contains one of {@code hints}. */
    static PatternDetector of(String id, Hints hints, String description, String regex) {
        return new PatternDetector(id, description, Pattern.compile(regex), 0, s -> true, hints);
    }

    /** A detector that fires when {@code accept} holds for capture group {@code group} of some match. */
    static PatternDetector checked(String id, Hints hints, String description, String regex, int group,
                                   Predicate<String> accept) {
        return new PatternDetector(id, description, Pattern.compile(regex), group, accept, hints);
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public boolean matches(String value) {
        if (!hints.present(value)) {
            return false;
        }
        Matcher m = pattern.matcher(value);
        while (m.find()) {
            if (accept.test(m.group(group))) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "Detector[" + id + "]";
    }
}
