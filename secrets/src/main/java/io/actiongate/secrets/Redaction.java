package io.actiongate.secrets;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.regex.Pattern;

/**
 * The one redaction library of provider text, with two fences:
 * <ul>
 *   <li>{@link #snippet} and {@link #identifier}: what a connector puts in {@code error_detail} and {@code evidence}
 *   (bounded, printable ASCII only, the configured secrets and anything that looks like a bearer token or key/value
 *   secret blanked out);</li>
 *   <li>{@link #redact} and {@link #receiptId}: the executor's and reconciler's second fence before a topic
 *   (credentials after an auth scheme, long opaque tokens, URLs with a query string and absolute local paths
 *   replaced, control characters flattened, the length bounded).</li>
 * </ul>
 * Both mask every {@link SecretPatterns well-known credential shape} the gate's scanner recognises, with the same
 * {@link #MASK}.
 */
public final class Redaction {

    /** What replaces a secret on every path. */
    public static final String MASK = "[redacted]";

    /** The connectors' excerpt length. */
    public static final int DEFAULT_SNIPPET = 120;

    /** The length {@link #redact(String)} bounds text to. */
    public static final int DEFAULT_MAX_LENGTH = 256;

    // first fence: the whole credential phrase goes
    private static final Pattern TOKENISH = Pattern.compile(
            "(?i)(bearer\\s+\\S+|basic\\s+\\S+|(token|secret|password|passwd|api[_-]?key|authorization)"
                    + "\\s*[\"']?\\s*[:=]\\s*[\"']?[^\\s\"',;}]+)");
    private static final Pattern LONG_OPAQUE = Pattern.compile("[A-Za-z0-9+/_=-]{32,}");

    // second fence: the label stays, its value goes
    // "Authorization: Bearer x" keeps its scheme too, so the value after it cannot slip through
    private static final Pattern AUTH_SCHEME = Pattern.compile(
            "(?i)\\b((?:authorization[\\s:=]+)?(?:bearer|basic)|authorization|token|apikey|api-key)([\\s:=]+)\\S+");
    private static final Pattern SECRET_ASSIGNMENT =
            Pattern.compile("(?i)\\b(password|passwd|secret|api_key|access_token|refresh_token)([\"']?\\s*[:=]\\s*)\\S+");
    private static final Pattern URL_WITH_QUERY = Pattern.compile("(?i)\\bhttps?://[^\\s?]+\\?\\S+");
    private static final Pattern LOCAL_PATH = Pattern.compile("(?<![\\w.])(/(?:home|root|etc|var|tmp|Users|run)/\\S*)");
    private static final Pattern OPAQUE_TOKEN = Pattern.compile("[A-Za-z0-9+/_=.-]{32,}");
    private static final Pattern CONTROL = Pattern.compile("\\p{Cntrl}+");
    private static final Pattern PLAIN_ID = Pattern.compile("[A-Za-z0-9._:@+-]{1,128}");

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
     * {@code max} characters, and null if it contains a configured secret or a well-known credential. Unlike
     * {@link #snippet}, long opaque strings are kept, since ids such as UUIDs look exactly like that.
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
        if (id.isEmpty() || id.length() > max || !id.chars().allMatch(c -> c > 0x20 && c < 0x7f)
                || SecretPatterns.ANY_KNOWN_TOKEN.matcher(id).find()) {
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
                s = s.replace(secret, MASK);
            }
        }
        s = SecretPatterns.ANY_KNOWN_TOKEN.matcher(s).replaceAll(MASK);
        s = TOKENISH.matcher(s).replaceAll(MASK);
        s = LONG_OPAQUE.matcher(s).replaceAll(MASK);
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

    /** {@code text} scrubbed and cut to {@link #DEFAULT_MAX_LENGTH} characters; null stays null. */
    public static String redact(String text) {
        return redact(text, DEFAULT_MAX_LENGTH);
    }

    /**
     * A provider's receipt id: kept verbatim when it is a plain identifier (UUIDs and similar opaque ids are what
     * receipts are for) holding no well-known credential; anything else goes through {@link #redact(String, int)}.
     */
    public static String receiptId(String id) {
        if (id == null) {
            return null;
        }
        return PLAIN_ID.matcher(id).matches() && !AUTH_SCHEME.matcher(id).find()
                && !SecretPatterns.ANY_KNOWN_TOKEN.matcher(id).find() ? id : redact(id, 128);
    }

    public static String redact(String text, int maxLength) {
        if (text == null) {
            return null;
        }
        String out = CONTROL.matcher(text).replaceAll(" ");
        out = SecretPatterns.ANY_KNOWN_TOKEN.matcher(out).replaceAll(MASK);
        out = AUTH_SCHEME.matcher(out).replaceAll("$1$2" + MASK);
        out = SECRET_ASSIGNMENT.matcher(out).replaceAll("$1$2" + MASK);
        out = URL_WITH_QUERY.matcher(out).replaceAll(MASK);
        out = LOCAL_PATH.matcher(out).replaceAll(MASK);
        out = OPAQUE_TOKEN.matcher(out).replaceAll(MASK);
        out = out.strip();
        if (out.length() > maxLength) {
            out = out.substring(0, Math.max(0, maxLength - 1)) + "\u2026";
        }
        return out;
    }
}
