package io.actiongate.approver.web;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/** Unguessable tokens (256 bits, base64url) and a constant-time comparison. */
public final class Tokens {

    private static final SecureRandom RANDOM = new SecureRandom();

    private Tokens() {
    }

    public static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        RANDOM.nextBytes(b);
        return b;
    }

    public static String random() {
        return b64(randomBytes(32));
    }

    public static String b64(byte[] b) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    /** Decodes base64url (padding optional); null for anything else. */
    public static byte[] unb64(String s) {
        if (s == null) {
            return null;
        }
        try {
            return Base64.getUrlDecoder().decode(s.strip());
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** Constant-time equality; false when either is null. */
    public static boolean same(String a, String b) {
        if (a == null || b == null) {
            return false;
        }
        return MessageDigest.isEqual(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }
}
