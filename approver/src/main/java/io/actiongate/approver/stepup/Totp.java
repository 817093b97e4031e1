package io.actiongate.approver.stepup;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.Locale;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * RFC 6238 time-based one-time passwords (HMAC-SHA1, 30-second steps, 6 digits), the step-up fallback where passkeys
 * are unavailable. A code is accepted for the current step and one step either side; {@link #verify} returns the step
 * it matched so the caller can refuse a code whose step was already used (no replay within the window).
 */
public final class Totp {

    public static final int DIGITS = 6;
    public static final long STEP_SECONDS = 30;
    private static final String BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

    private Totp() {
    }

    /** The code for time step {@code step} (RFC 4226 HOTP with the step as counter). */
    public static String code(byte[] secret, long step) {
        try {
            Mac mac = Mac.getInstance("HmacSHA1");
            mac.init(new SecretKeySpec(secret, "HmacSHA1"));
            byte[] h = mac.doFinal(ByteBuffer.allocate(8).putLong(step).array());
            int off = h[h.length - 1] & 0x0f;
            int bin = ((h[off] & 0x7f) << 24) | ((h[off + 1] & 0xff) << 16) | ((h[off + 2] & 0xff) << 8)
                    | (h[off + 3] & 0xff);
            return String.format(Locale.ROOT, "%0" + DIGITS + "d", bin % 1_000_000);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA1 is part of every Java platform", e);
        }
    }

    public static long step(Instant t) {
        return Math.floorDiv(t.getEpochSecond(), STEP_SECONDS);
    }

    /** The matching step within one step of {@code now}, or -1. Compares every candidate (constant work). */
    public static long verify(byte[] secret, String code, Instant now) {
        if (code == null) {
            return -1;
        }
        String c = code.strip().replace(" ", "");
        if (!c.matches("[0-9]{6}")) {
            return -1;
        }
        long s = step(now);
        long found = -1;
        for (long candidate = s - 1; candidate <= s + 1; candidate++) {
            if (java.security.MessageDigest.isEqual(code(secret, candidate).getBytes(), c.getBytes())) {
                found = candidate;
            }
        }
        return found;
    }

    public static String base32(byte[] data) {
        StringBuilder b = new StringBuilder();
        int buffer = 0;
        int bits = 0;
        for (byte x : data) {
            buffer = (buffer << 8) | (x & 0xff);
            bits += 8;
            while (bits >= 5) {
                b.append(BASE32.charAt((buffer >> (bits - 5)) & 31));
                bits -= 5;
            }
        }
        if (bits > 0) {
            b.append(BASE32.charAt((buffer << (5 - bits)) & 31));
        }
        return b.toString();
    }

    public static byte[] unbase32(String s) {
        String in = s.replace("=", "").replace(" ", "").toUpperCase(Locale.ROOT);
        ByteBuffer out = ByteBuffer.allocate(in.length() * 5 / 8);
        int buffer = 0;
        int bits = 0;
        for (char ch : in.toCharArray()) {
            int v = BASE32.indexOf(ch);
            if (v < 0) {
                throw new IllegalArgumentException("not base32");
            }
            buffer = (buffer << 5) | v;
            bits += 5;
            if (bits >= 8) {
                out.put((byte) (buffer >> (bits - 8)));
                bits -= 8;
            }
        }
        byte[] r = new byte[out.position()];
        out.flip();
        out.get(r);
        return r;
    }
}
