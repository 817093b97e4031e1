package io.actiongate.testing;

import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Instant;
import java.util.Locale;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A person's authenticator app: RFC 6238 codes (HMAC-SHA1, 30-second steps, 6 digits) from the base32 secret the
 * step-up page shows. Written from the RFC, not shared with the approval service's own code, as a person's phone
 * shares nothing with the server: a test that approves with these codes fails when the service's codes drift from
 * the standard. The service accepts a step's code once per person, so {@link #nextCode} waits for the next step when
 * the current one was used already, as a person would.
 */
public final class OneTimeCodeApp {

    /** Seconds a code is good for. */
    public static final long STEP_SECONDS = 30;
    private static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

    private final byte[] key;
    private final Clock clock;
    private long lastStep = -1;

    /** @param base32Secret the secret as the step-up page shows it (padding, spaces and case ignored) */
    public OneTimeCodeApp(String base32Secret) {
        this(base32Secret, Clock.systemUTC());
    }

    /** As above, reading {@code clock} (a test's service on a clock of its own). */
    public OneTimeCodeApp(String base32Secret, Clock clock) {
        this.key = decode(base32Secret);
        this.clock = clock;
    }

    /** The code shown now; when this app already gave the current step's code, the next step's, once it starts. */
    public synchronized String nextCode() throws InterruptedException {
        long step = stepAt(clock.instant());
        while (step <= lastStep) {
            long nextStepAtMs = (lastStep + 1) * STEP_SECONDS * 1000;
            Thread.sleep(Math.max(50, nextStepAtMs - clock.millis() + 50));
            step = stepAt(clock.instant());
        }
        lastStep = step;
        return codeAt(step);
    }

    /** The code of time step {@code step}: RFC 4226 HOTP with the step as the moving factor. */
    public String codeAt(long step) {
        byte[] counter = new byte[8];
        for (int i = 7, s = 0; i >= 0; i--, s += 8) {
            counter[i] = (byte) (step >>> s);
        }
        byte[] mac;
        try {
            Mac hmac = Mac.getInstance("HmacSHA1");
            hmac.init(new SecretKeySpec(key, "HmacSHA1"));
            mac = hmac.doFinal(counter);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java platform has HmacSHA1", e);
        }
        int offset = mac[mac.length - 1] & 0xf;
        int truncated = 0;
        for (int i = 0; i < 4; i++) {
            truncated = truncated << 8 | mac[offset + i] & 0xff;
        }
        return String.format(Locale.ROOT, "%06d", (truncated & 0x7fffffff) % 1_000_000);
    }

    /** The time step {@code t} falls in. */
    public static long stepAt(Instant t) {
        return Math.floorDiv(t.getEpochSecond(), STEP_SECONDS);
    }

    /** RFC 4648 base32, as authenticator apps read a typed-in secret. */
    static byte[] decode(String base32) {
        String s = base32.replaceAll("[\\s=]", "").toUpperCase(Locale.ROOT);
        if (s.isEmpty()) {
            throw new IllegalArgumentException("an empty one-time code secret");
        }
        byte[] out = new byte[s.length() * 5 / 8];
        long bits = 0;
        int held = 0;
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            int v = ALPHABET.indexOf(s.charAt(i));
            if (v < 0) {
                throw new IllegalArgumentException("a one-time code secret is base32 (A-Z, 2-7); it has '"
                        + s.charAt(i) + "' at " + i);
            }
            bits = bits << 5 | v;
            held += 5;
            if (held >= 8) {
                held -= 8;
                out[n++] = (byte) (bits >>> held);
            }
        }
        return out;
    }
}
