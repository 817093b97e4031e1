package io.actiongate.connector.internal.http;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.regex.Pattern;

/**
 * Makes provider text safe for {@code error_detail} and {@code evidence}: bounded, printable ASCII only,
 * configured secrets and anything that looks like a bearer token or key/value secret blanked out.
 */
public final class Redaction {

    public static final int DEFAULT_SNIPPET = 120;

    private static final Pattern TOKENISH = Pattern.compile(
            "(?i)(bearer\\s+\\S+|basic\\s+\\S+|(token|secret|password|passwd|api[_-]?key|authorization)"
                    + "\\s*[\"']?\\s*[:=]\\s*[\"']?[^\\s\"',;}]+)");
    private static final Pattern LONG_OPAQUE = Pattern.compile("[A-Za-z0-9+/_=-]{32,}");

    private Redaction() {
    }

    /** A short, sanitized excerpt of a response body; never more than {@code max} characters. */
    public static String snippet(byte[] body, int max, Collection<String> secrets) {
        if (body == null || body.length == 0) {
            return "";
        }
        int take = Math.min(body.length, max * 4);
        return snippet(new String(body, 0, take, StandardCharsets.UTF_8), max, secrets);
    }

    /**
     * A provider's identifier (receipt id, post id) made safe to publish: printable ASCII only, at most
     * {@code max} characters, and null if it contains a configured secret. Unlike {@link #snippet}, long opaque
     * strings are kept, since ids such as UUIDs look exactly like that.
     */
    public static String identifier(String id, int max, Collection<String> secrets) {
        if (id == null) {
            return null;
        }
        for (String secret : secrets) {
            if (secret != null && !secret.isEmpty() && id.contains(secret)) {
                return null;
            }
        }
        if (id.isEmpty() || id.length() > max || !id.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            return null;
        }
        return id;
    }

    public static String snippet(String text, int max, Collection<String> secrets) {
        if (text == null || text.isEmpty()) {
            return "";
        }
        String s = text;
        for (String secret : secrets) {
            if (secret != null && !secret.isEmpty()) {
                s = s.replace(secret, "[redacted]");
            }
        }
        s = TOKENISH.matcher(s).replaceAll("[redacted]");
        s = LONG_OPAQUE.matcher(s).replaceAll("[redacted]");
        StringBuilder out = new StringBuilder(Math.min(s.length(), max));
        boolean lastSpace = false;
        for (int i = 0; i < s.length() && out.length() < max; i++) {
            char c = s.charAt(i);
            boolean printable = c >= 0x20 && c < 0x7f;
            if (!printable || c == ' ') {
                if (!lastSpace && out.length() > 0) {
                    out.append(' ');
                }
                lastSpace = true;
            } else {
                out.append(c);
                lastSpace = false;
            }
        }
        return out.toString().strip();
    }
}
