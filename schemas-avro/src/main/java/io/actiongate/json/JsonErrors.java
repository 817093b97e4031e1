package io.actiongate.json;

import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;

/**
 * What went wrong in a JSON text, said without the text: the kind of the failure and where it is (line, column,
 * offset), never an excerpt. Jackson's messages quote the input ({@code Unrecognized token 'ghp_...'},
 * {@code Duplicate field 'password'}), and input may hold a credential; every answer, log line or dead letter that
 * explains a JSON failure goes through here (architecture-tests' {@code JsonErrorsRuleTest} keeps Jackson's messages
 * out of every other production class).
 */
public final class JsonErrors {

    /** The kinds of failure this names; a message of another kind is "invalid JSON". */
    public enum Kind {
        DUPLICATE_MEMBER("duplicate member", "Duplicate field", "Duplicate Object property"),
        END_OF_INPUT("unexpected end of input", "Unexpected end-of-input"),
        UNRECOGNIZED_TOKEN("unrecognized token", "Unrecognized token"),
        UNEXPECTED_CHARACTER("unexpected character", "Unexpected character", "Illegal character"),
        TRAILING_DATA("trailing data after the JSON value", "Trailing token"),
        CONTROL_CHARACTER("unescaped control character in a string", "Illegal unquoted character"),
        INVALID_ESCAPE("invalid escape in a string", "Unrecognized character escape", "Illegal white space character"),
        INVALID_ENCODING("invalid UTF-8", "Invalid UTF-8"),
        INVALID_NUMBER("invalid number", "Invalid numeric value", "Leading zeroes", "Numeric value"),
        LIMIT("a value or nesting deeper than the parser allows"),
        INVALID("invalid JSON");

        private final String words;
        private final List<String> prefixes;

        Kind(String words, String... prefixes) {
            this.words = words;
            this.prefixes = List.of(prefixes);
        }

        /** The kind in words, e.g. {@code "duplicate member"}. */
        public String words() {
            return words;
        }
    }

    private JsonErrors() {
    }

    /** The kind of {@code e}, read from its class and the start of Jackson's message (which is never repeated). */
    public static Kind kind(JacksonException e) {
        if (e instanceof StreamConstraintsException) {
            return Kind.LIMIT;
        }
        String original = e.getOriginalMessage();
        if (original != null) {
            for (Kind kind : Kind.values()) {
                for (String prefix : kind.prefixes) {
                    if (original.startsWith(prefix)) {
                        return kind;
                    }
                }
            }
        }
        return Kind.INVALID;
    }

    /**
     * {@code e} in words without the input: {@code "unrecognized token at line 1, column 45 (offset 44)"}, or the
     * kind alone when Jackson gave no location.
     */
    public static String describe(JacksonException e) {
        String where = position(e.getLocation());
        return kind(e).words() + (where.isEmpty() ? "" : " at " + where);
    }

    /** {@code "line 1, column 45 (offset 44)"}, or empty for an unknown location. */
    public static String position(JsonLocation location) {
        if (location == null || location.getLineNr() < 0) {
            return "";
        }
        long offset = offset(location);
        return String.format(Locale.ROOT, "line %d, column %d%s", location.getLineNr(), location.getColumnNr(),
                offset < 0 ? "" : " (offset " + offset + ")");
    }

    /** The offset of {@code location} in chars (text input) or bytes (byte input); -1 when unknown. */
    public static long offset(JsonLocation location) {
        if (location == null) {
            return -1;
        }
        return location.getCharOffset() >= 0 ? location.getCharOffset() : location.getByteOffset();
    }
}
