package io.actiongate.approver.stepup;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.webauthn4j.converter.AttestedCredentialDataConverter;
import com.webauthn4j.converter.util.ObjectConverter;
import com.webauthn4j.credential.CredentialRecord;
import com.webauthn4j.credential.CredentialRecordImpl;
import com.webauthn4j.data.attestation.statement.NoneAttestationStatement;

import io.actiongate.approver.state.SharedState;
import io.actiongate.approver.web.Sealer;
import io.actiongate.approver.web.Tokens;

/**
 * Each person's step-up factors, by org and subject, in the {@link SharedState} every replica reads: registered
 * passkeys (credential id, attested credential data, signature counter), a TOTP secret sealed with AES-GCM under the
 * key ring of {@code approver.state.key.file} (associated data: the person), the last time step used, and recent
 * step-up failures (local factors and step-ups at the identity provider alike). Every change is a compare-and-set of the person's whole record, so a one-time code accepted on
 * one replica is refused on every other, and two enrolments at once cannot both think they were first.
 */
public final class StepUpStore {

    /** One registered passkey. */
    public record Passkey(String id, CredentialRecord record, Instant addedAt) {
    }

    /** Failed step-ups tolerated per person within {@link #LOCK_WINDOW} before step-up is refused for that long. */
    public static final int MAX_FAILURES = 5;
    public static final java.time.Duration LOCK_WINDOW = java.time.Duration.ofMinutes(15);
    private static final int MAX_PASSKEYS = 10;
    private static final int ATTEMPTS = 8;

    /** A stored passkey: the attested credential data (base64url) and what webauthn4j tracks with it. */
    record StoredPasskey(String id, String attestedCredentialData, long counter, boolean uvInitialized,
                         boolean backupEligible, boolean backedUp, long addedAtMillis) {
    }

    /** A person's whole record, as JSON on the shared state. */
    record Doc(String userHandle, List<StoredPasskey> passkeys, String totp, long lastTotpStep, List<Long> failures) {
        Doc {
            passkeys = passkeys == null ? List.of() : List.copyOf(passkeys);
            failures = failures == null ? List.of() : List.copyOf(failures);
        }

        static Doc empty() {
            return new Doc(null, List.of(), null, -1, List.of());
        }

        boolean hasAny() {
            return !passkeys.isEmpty() || totp != null;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AttestedCredentialDataConverter ACD = new AttestedCredentialDataConverter(
            new ObjectConverter());

    private final SharedState state;
    private final Sealer sealer;

    public StepUpStore(SharedState state, Sealer sealer) {
        this.state = state;
        this.sealer = sealer;
    }

    static String key(String org, String subject) {
        return "factors/" + org.length() + ":" + org + "/" + subject;
    }

    private static String totpPurpose(String org, String subject) {
        return "totp-secret:" + org.length() + ":" + org + "/" + subject;
    }

    private record Read(long version, Doc doc) {
    }

    private Read read(String org, String subject) {
        return state.get(key(org, subject)).map(v -> {
            try {
                return new Read(v.version(), JSON.readValue(v.value(), Doc.class));
            } catch (IOException e) {
                throw new UncheckedIOException("the step-up record of a person does not read", e);
            }
        }).orElse(new Read(0, Doc.empty()));
    }

    /** The outcome of a change: applied, or refused by the change itself (it returned empty). */
    private boolean update(String org, String subject, Function<Doc, Optional<Doc>> change) {
        for (int i = 0; i < ATTEMPTS; i++) {
            Read r = read(org, subject);
            Optional<Doc> next = change.apply(r.doc());
            if (next.isEmpty()) {
                return false;
            }
            Doc d = next.get();
            // rotation: a secret read under an older key is sealed under the current one whenever the record changes
            if (d.totp() != null && sealer.sealedUnderOldKey(d.totp())) {
                byte[] secret = sealer.openBytes(totpPurpose(org, subject), d.totp()).orElse(null);
                if (secret != null) {
                    d = new Doc(d.userHandle(), d.passkeys(), sealer.seal(totpPurpose(org, subject), secret),
                            d.lastTotpStep(), d.failures());
                }
            }
            byte[] bytes;
            try {
                bytes = JSON.writeValueAsBytes(d);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (state.compareAndSet(key(org, subject), r.version(), bytes)) {
                return true;
            }
        }
        throw new IllegalStateException("the step-up record kept changing under this update");
    }

    /** The opaque WebAuthn user handle of this person (random, not their name), or empty before the first passkey. */
    public Optional<byte[]> userHandle(String org, String subject) {
        String h = read(org, subject).doc().userHandle();
        return h == null ? Optional.empty() : Optional.of(Tokens.unb64(h));
    }

    public List<Passkey> passkeys(String org, String subject) {
        List<Passkey> out = new ArrayList<>();
        for (StoredPasskey p : read(org, subject).doc().passkeys()) {
            CredentialRecordImpl record = new CredentialRecordImpl(new NoneAttestationStatement(), p.uvInitialized(),
                    p.backupEligible(), p.backedUp(), p.counter(), ACD.convert(Tokens.unb64(p.attestedCredentialData())),
                    null, null, null, null);
            out.add(new Passkey(p.id(), record, Instant.ofEpochMilli(p.addedAtMillis())));
        }
        return List.copyOf(out);
    }

    public Optional<Passkey> passkey(String org, String subject, String credentialId) {
        return passkeys(org, subject).stream().filter(p -> p.id().equals(credentialId)).findFirst();
    }

    /**
     * Adds a passkey. With {@code onlyAsFirst} it is added only if the person has no factor at all when the write
     * lands (the fresh-sign-in path); returns whether it was added.
     */
    public boolean addPasskey(String org, String subject, Passkey p, byte[] userHandle, boolean onlyAsFirst) {
        CredentialRecord r = p.record();
        StoredPasskey stored = new StoredPasskey(p.id(), Tokens.b64(ACD.convert(r.getAttestedCredentialData())),
                r.getCounter(), Boolean.TRUE.equals(r.isUvInitialized()), Boolean.TRUE.equals(r.isBackupEligible()),
                Boolean.TRUE.equals(r.isBackedUp()), p.addedAt().toEpochMilli());
        return update(org, subject, d -> {
            if (onlyAsFirst && d.hasAny()) {
                return Optional.empty();
            }
            List<StoredPasskey> keys = new ArrayList<>(d.passkeys());
            keys.removeIf(x -> x.id().equals(p.id()));
            if (keys.size() >= MAX_PASSKEYS) {
                return Optional.empty();
            }
            keys.add(stored);
            String handle = d.userHandle() != null ? d.userHandle() : Tokens.b64(userHandle);
            return Optional.of(new Doc(handle, keys, d.totp(), d.lastTotpStep(), d.failures()));
        });
    }

    /** Keeps a passkey's signature counter current after an assertion verified. */
    public void passkeyUsed(String org, String subject, String credentialId, long counter) {
        update(org, subject, d -> {
            List<StoredPasskey> keys = new ArrayList<>();
            for (StoredPasskey k : d.passkeys()) {
                keys.add(k.id().equals(credentialId) ? new StoredPasskey(k.id(), k.attestedCredentialData(),
                        Math.max(counter, k.counter()), k.uvInitialized(), k.backupEligible(), k.backedUp(),
                        k.addedAtMillis()) : k);
            }
            return Optional.of(new Doc(d.userHandle(), keys, d.totp(), d.lastTotpStep(), d.failures()));
        });
    }

    /**
     * Removes every factor of this person (the operator's reset): written as an empty record, not deleted, so that
     * no write in flight from before the reset can bring an old factor back. Returns whether there was any.
     */
    public boolean reset(String org, String subject) {
        boolean had = read(org, subject).doc().hasAny();
        update(org, subject, d -> Optional.of(Doc.empty()));
        return had;
    }

    public boolean hasTotp(String org, String subject) {
        return read(org, subject).doc().totp() != null;
    }

    /**
     * Sets (or replaces) the TOTP secret, {@code usedStep} being the step of the code that confirmed it. With
     * {@code onlyAsFirst}, only if the person has no factor at all when the write lands.
     */
    public boolean setTotp(String org, String subject, byte[] secret, long usedStep, boolean onlyAsFirst) {
        String sealed = sealer.seal(totpPurpose(org, subject), secret);
        return update(org, subject, d -> onlyAsFirst && d.hasAny() ? Optional.empty()
                : Optional.of(new Doc(d.userHandle(), d.passkeys(), sealed, usedStep, d.failures())));
    }

    /**
     * Whether {@code code} is valid now and its step newer than the last one used on any replica; then that step
     * becomes the last, in the same write.
     */
    public boolean useTotp(String org, String subject, String code, Instant now) {
        return update(org, subject, d -> {
            if (d.totp() == null) {
                return Optional.empty();
            }
            byte[] secret = sealer.openBytes(totpPurpose(org, subject), d.totp()).orElse(null);
            if (secret == null) {
                return Optional.empty(); // sealed under a key no longer configured: fail closed
            }
            long step = Totp.verify(secret, code, now);
            if (step < 0 || step <= d.lastTotpStep()) {
                return Optional.empty();
            }
            return Optional.of(new Doc(d.userHandle(), d.passkeys(), d.totp(), step, d.failures()));
        });
    }

    /**
     * Whether step-up is locked for this person: {@link #MAX_FAILURES} failures within {@link #LOCK_WINDOW} (on any
     * replica). Bounds online guessing of one-time codes (one in a million per guess, three steps accepted).
     */
    public boolean locked(String org, String subject, Instant now) {
        return recentFailures(org, subject, now) >= MAX_FAILURES;
    }

    /** The failed step-ups of this person within {@link #LOCK_WINDOW} before {@code now}, on any replica. */
    public int recentFailures(String org, String subject, Instant now) {
        long since = now.minus(LOCK_WINDOW).toEpochMilli();
        return (int) read(org, subject).doc().failures().stream().filter(t -> t > since).count();
    }

    public void recordFailure(String org, String subject, Instant now) {
        long since = now.minus(LOCK_WINDOW).toEpochMilli();
        update(org, subject, d -> {
            List<Long> f = new ArrayList<>(d.failures().stream().filter(t -> t > since).toList());
            f.add(now.toEpochMilli());
            while (f.size() > MAX_FAILURES) {
                f.remove(0);
            }
            return Optional.of(new Doc(d.userHandle(), d.passkeys(), d.totp(), d.lastTotpStep(), f));
        });
    }

    public boolean hasAny(String org, String subject) {
        return read(org, subject).doc().hasAny();
    }
}
