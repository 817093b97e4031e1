package io.actiongate.approver.stepup;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import com.webauthn4j.credential.CredentialRecord;

import io.actiongate.approver.web.Tokens;

/**
 * Each person's step-up factors, by org and subject: registered passkeys (credential id and the webauthn4j record,
 * whose signature counter is kept current) and a TOTP secret with the last time step used. Held in memory: a restart
 * of the service means enrolling again after a fresh sign-in (README, "Step-up").
 */
public final class StepUpStore {

    /** One registered passkey. */
    public record Passkey(String id, CredentialRecord record, Instant addedAt) {
    }

    /** Failed step-ups tolerated per person within {@link #LOCK_WINDOW} before step-up is refused for that long. */
    public static final int MAX_FAILURES = 5;
    public static final java.time.Duration LOCK_WINDOW = java.time.Duration.ofMinutes(15);

    private static final class Factors {
        final byte[] userHandle = Tokens.randomBytes(16);
        final java.util.Deque<Instant> failures = new java.util.ArrayDeque<>();
        final List<Passkey> passkeys = new ArrayList<>();
        byte[] totpSecret;
        long lastTotpStep = -1;
    }

    private final ConcurrentHashMap<String, Factors> factors = new ConcurrentHashMap<>();

    private static String id(String org, String subject) {
        return org + '\u0000' + subject;
    }

    private Factors of(String org, String subject) {
        return factors.computeIfAbsent(id(org, subject), k -> new Factors());
    }

    /** The opaque WebAuthn user handle of this person (random, not their name). */
    public byte[] userHandle(String org, String subject) {
        return of(org, subject).userHandle.clone();
    }

    public List<Passkey> passkeys(String org, String subject) {
        Factors f = factors.get(id(org, subject));
        if (f == null) {
            return List.of();
        }
        synchronized (f) {
            return List.copyOf(f.passkeys);
        }
    }

    public Optional<Passkey> passkey(String org, String subject, String credentialId) {
        return passkeys(org, subject).stream().filter(p -> p.id().equals(credentialId)).findFirst();
    }

    public void addPasskey(String org, String subject, Passkey p) {
        Factors f = of(org, subject);
        synchronized (f) {
            f.passkeys.removeIf(x -> x.id().equals(p.id()));
            f.passkeys.add(p);
        }
    }

    /** Keeps a passkey's signature counter current after an assertion verified. */
    public void passkeyUsed(String org, String subject, String credentialId, long counter) {
        passkey(org, subject, credentialId).ifPresent(p -> p.record().setCounter(counter));
    }

    /** Removes every factor of this person (the operator's reset); whether there was any. */
    public boolean reset(String org, String subject) {
        Factors f = factors.remove(id(org, subject));
        if (f == null) {
            return false;
        }
        synchronized (f) {
            return !f.passkeys.isEmpty() || f.totpSecret != null;
        }
    }

    public boolean hasTotp(String org, String subject) {
        Factors f = factors.get(id(org, subject));
        if (f == null) {
            return false;
        }
        synchronized (f) {
            return f.totpSecret != null;
        }
    }

    public void setTotp(String org, String subject, byte[] secret, long usedStep) {
        Factors f = of(org, subject);
        synchronized (f) {
            f.totpSecret = secret.clone();
            f.lastTotpStep = usedStep;
        }
    }

    /** Whether {@code code} is valid now and its step newer than the last one used (then it becomes the last). */
    public boolean useTotp(String org, String subject, String code, Instant now) {
        Factors f = factors.get(id(org, subject));
        if (f == null) {
            return false;
        }
        synchronized (f) {
            if (f.totpSecret == null) {
                return false;
            }
            long step = Totp.verify(f.totpSecret, code, now);
            if (step < 0 || step <= f.lastTotpStep) {
                return false;
            }
            f.lastTotpStep = step;
            return true;
        }
    }

    /**
     * Whether step-up is locked for this person: {@link #MAX_FAILURES} failures within {@link #LOCK_WINDOW}. Bounds
     * online guessing of one-time codes (one in a million per guess, three steps accepted).
     */
    public boolean locked(String org, String subject, Instant now) {
        Factors f = factors.get(id(org, subject));
        if (f == null) {
            return false;
        }
        synchronized (f) {
            while (!f.failures.isEmpty() && !f.failures.peekFirst().isAfter(now.minus(LOCK_WINDOW))) {
                f.failures.removeFirst();
            }
            return f.failures.size() >= MAX_FAILURES;
        }
    }

    public void recordFailure(String org, String subject, Instant now) {
        Factors f = of(org, subject);
        synchronized (f) {
            f.failures.addLast(now);
            while (f.failures.size() > MAX_FAILURES) {
                f.failures.removeFirst();
            }
        }
    }

    public boolean hasAny(String org, String subject) {
        return !passkeys(org, subject).isEmpty() || hasTotp(org, subject);
    }
}
