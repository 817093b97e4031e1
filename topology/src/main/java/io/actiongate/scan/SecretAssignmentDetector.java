package io.actiongate.scan;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code password=...}, {@code api_key: ...}, {@code "client_secret": "..."} and friends, in text and as JSON
 * members: fires when the name is {@linkplain SensitiveName sensitive} and the value is a
 * {@linkplain Entropy#isHighEntropySecret high-entropy} single word that is not a {@linkplain Placeholders
 * placeholder}. Prose such as {@code "password": "please reset it"} does not fire.
 */
final class SecretAssignmentDetector implements Detector {

    static final String ID = "secret_assignment";

    /*
     * A name, an optional closing quote, ':' or '=' and blanks: only the name and its separator, never the value, so
     * the search goes on right after the separator. An assignment that is itself the value of another one
     * ("Note: password=...", "key: password: ...", "x=\"db_password=...\"") is found in turn: the outer name is
     * judged and the inner one is the next match. The name is anchored by a look-behind and matched possessively
     * (any length: a name is judged on its last MAX_NAME chars), so each run of name chars is tried once and the
     * search is linear.
     */
    private static final Pattern NAME = Pattern.compile(
            "(?<![A-Za-z0-9_.\\-])([A-Za-z0-9_.\\-]++)[\"']?[ \\t]{0,8}+[:=][ \\t]{0,8}+");

    /*
     * The value right after a sensitive name's separator: double-quoted or single-quoted up to its closing quote on
     * the same line, else one bare word (after a quote that is never closed, too: an unclosed quote does not turn
     * the rest of the line into one value of many words). A longer value is judged on its first 256 chars (a
     * longer quoted one on its first word), so that text of assignments nested in assignments ("password=password=
     * ...") costs a bounded read per name: each value is read behind a sensitive name only, at most MAX_VALUE chars.
     */
    private static final Pattern VALUE = Pattern.compile(
            "\"([^\"\\r\\n]{1,256}+)\"|'([^'\\r\\n]{1,256}+)'|[\"']?+([^\\s\"',;&]{1,256}+)");
    private static final int MAX_VALUE = 258;
    static final int MAX_NAME = 128;

    /** Every sensitive name contains one of these (see {@link SensitiveName}). */
    private static final Hints NAME_HINTS = Hints.anyOfIgnoringCase("pass", "secret", "key", "token", "credential",
            "authorization", "cookie");

    @Override
    public String id() {
        return ID;
    }

    @Override
    public String description() {
        return "api_key / secret / password / passwd / token / client_secret / private_key assignment whose value "
                + "is one word of >= " + Entropy.MIN_LENGTH + " chars with >= " + Entropy.MIN_BITS_PER_CHAR
                + " bits/char Shannon entropy (text key=value, key: value, \"key\": \"value\", and JSON members)";
    }

    @Override
    public boolean matches(String value) {
        if (value.indexOf(':') < 0 && value.indexOf('=') < 0 || !NAME_HINTS.present(value)) {
            return false;
        }
        Matcher name = NAME.matcher(value);
        Matcher v = VALUE.matcher(value);
        while (name.find()) {
            String n = name.group(1);
            if (n.length() > MAX_NAME) {
                n = n.substring(n.length() - MAX_NAME);
            }
            if (!SensitiveName.isSensitive(n)) {
                continue;
            }
            v.region(name.end(), Math.min(value.length(), name.end() + MAX_VALUE));
            if (v.lookingAt()) {
                String found = v.group(1) != null ? v.group(1) : v.group(2) != null ? v.group(2) : v.group(3);
                if (matchesMember(n, found)) {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    public boolean matchesMember(String name, String value) {
        String v = value.strip();
        return SensitiveName.isSensitive(name) && Entropy.isHighEntropySecret(v) && !Placeholders.isPlaceholder(v);
    }
}
