package io.actiongate.redaction;

import java.util.regex.Pattern;

/**
 * Bounds and scrubs free text that comes back from a connector or provider before it is written to a topic
 * (AttemptOutcome.error_detail, Reconciliation.evidence). Connectors already redact; this is the second fence:
 * credentials after an auth scheme, long opaque tokens (base64, hex, JWTs), URLs with a query string and
 * absolute local paths are replaced, control characters flattened, and the length bounded.
 */
public final class ProviderTextRedaction {

    public static final int DEFAULT_MAX_LENGTH = 256;
    static final String MASK = "[redacted]";

    private static final Pattern AUTH_SCHEME =
            Pattern.compile("(?i)\\b(bearer|basic|token|apikey|api-key|authorization)([\\s:=]+)\\S+");
    private static final Pattern SECRET_ASSIGNMENT =
            Pattern.compile("(?i)\\b(password|passwd|secret|api_key|access_token|refresh_token)([\"']?\\s*[:=]\\s*)\\S+");
    private static final Pattern URL_WITH_QUERY = Pattern.compile("(?i)\\bhttps?://[^\\s?]+\\?\\S+");
    private static final Pattern LOCAL_PATH = Pattern.compile("(?<![\\w.])(/(?:home|root|etc|var|tmp|Users|run)/\\S*)");
    private static final Pattern OPAQUE_TOKEN = Pattern.compile("[A-Za-z0-9+/_=.-]{32,}");
    private static final Pattern CONTROL = Pattern.compile("\\p{Cntrl}+");
    private static final Pattern PLAIN_ID = Pattern.compile("[A-Za-z0-9._:@+-]{1,128}");

    private ProviderTextRedaction() {
    }

    /** {@code text} scrubbed and cut to {@link #DEFAULT_MAX_LENGTH} characters; null stays null. */
    public static String redact(String text) {
        return redact(text, DEFAULT_MAX_LENGTH);
    }

    /**
     * A provider's receipt id: kept verbatim when it is a plain identifier (UUIDs and similar opaque ids are what
     * receipts are for); anything else goes through {@link #redact(String, int)}.
     */
    public static String receiptId(String id) {
        if (id == null) {
            return null;
        }
        return PLAIN_ID.matcher(id).matches() && !AUTH_SCHEME.matcher(id).find() ? id : redact(id, 128);
    }

    public static String redact(String text, int maxLength) {
        if (text == null) {
            return null;
        }
        String out = CONTROL.matcher(text).replaceAll(" ");
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
