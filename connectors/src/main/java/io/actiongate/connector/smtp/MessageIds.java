package io.actiongate.connector.smtp;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** {@code <first 32 hex chars of SHA-256(idempotency key)@domain>}: the same key always gives the same id. */
public final class MessageIds {

    static final int HEX_CHARS = 32;

    private MessageIds() {
    }

    private static final java.util.regex.Pattern FORM =
            java.util.regex.Pattern.compile("<[0-9a-f]{" + HEX_CHARS + "}@" + SmtpSettings.DOMAIN.pattern() + ">");

    /** Whether {@code messageId} has the form {@link #forKey} produces. */
    public static boolean isWellFormed(String messageId) {
        return messageId != null && FORM.matcher(messageId).matches();
    }

    public static String forKey(String idempotencyKey, String domain) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(idempotencyKey.getBytes(StandardCharsets.UTF_8));
            return "<" + HexFormat.of().formatHex(hash).substring(0, HEX_CHARS) + "@" + domain + ">";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
