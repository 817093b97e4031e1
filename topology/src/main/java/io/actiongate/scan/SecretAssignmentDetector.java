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
     * name, optional closing quote, ':' or '=', then a double-quoted, single-quoted or bare value (a quoted value
     * runs to its closing quote or line end; a longer value is judged on its first 4096 chars). The name is
     * anchored by a look-behind and matched possessively, so each run of name chars is tried once; every value
     * alternative is bounded and possessive.
     */
    private static final Pattern ASSIGNMENT = Pattern.compile(
            "(?<![A-Za-z0-9_.\\-])([A-Za-z0-9_.\\-]{1,128}+)[\"']?[ \\t]{0,8}+[:=][ \\t]{0,8}+"
                    + "(?:\"([^\"\\r\\n]{1,4096}+)|'([^'\\r\\n]{1,4096}+)|([^\\s\"',;&]{1,4096}+))");

    /** Every sensitive name contains one of these (see {@link SensitiveName}). */
    private static final Hints NAME_HINTS = Hints.anyOfIgnoringCase("pass", "secret", "key", "token", "credential");

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
        Matcher m = ASSIGNMENT.matcher(value);
        while (m.find()) {
            String v = m.group(2) != null ? m.group(2) : m.group(3) != null ? m.group(3) : m.group(4);
            if (matchesMember(m.group(1), v)) {
                return true;
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
