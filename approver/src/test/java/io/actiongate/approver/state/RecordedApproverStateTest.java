package io.actiongate.approver.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import io.actiongate.approver.stepup.StepUpStore;
import io.actiongate.approver.stepup.Totp;
import io.actiongate.approver.web.Challenges;
import io.actiongate.approver.web.Sealer;
import io.actiongate.approver.web.Session;
import io.actiongate.approver.web.Sessions;

/**
 * Every value the approval service has written to {@code approver-state} since the topic exists, and its session
 * cookie, as the build of its time wrote them (src/test/resources/recorded/{generator}-{commit}/approver, made by
 * formats/generators/*&#47;approver: the service's own classes over an in-memory state logging each write in
 * KafkaState's record layout), applied in log order as a replica applies them and read by this build: each person's
 * factors (one-time code secret, passkey, failures), sign-out marks, review challenges used and unused, the quota of
 * open forms, a session's pending secret, and the cookie of a signed-in session.
 */
class RecordedApproverStateTest {

    private static final String ORG = "acme";
    private static final String SUBJECT = "alice@example.com";
    private static final String KEY = "T-1/call-7";

    /** One generator's recording: its folder, facts and state records. */
    record Recording(String generator, Path dir, Map<String, String> facts) {
        Instant now() {
            return Instant.ofEpochMilli(Long.parseLong(facts.get("now")));
        }
    }

    /** A replica's view of the recorded state, through {@link StateView}, the one place records are applied. */
    static final class ViewState implements SharedState {
        final StateView view = new StateView();
        private long nonces;

        @Override
        public Optional<Versioned> get(String key) {
            return view.value(key).map(e -> new Versioned(e.version(), e.value()));
        }

        @Override
        public boolean compareAndSet(String key, long expectedVersion, byte[] value) {
            byte[] nonce = nonce();
            view.apply(key, new StateRecord(StateRecord.CAS, nonce, expectedVersion + 1, value).bytes(), null, "t");
            return view.value(key).map(e -> Arrays.equals(e.nonce(), nonce)).orElse(false);
        }

        @Override
        public boolean claim(String key) {
            byte[] nonce = nonce();
            view.apply(key, new StateRecord(StateRecord.CLAIM, nonce, 0, new byte[0]).bytes(), null, "t");
            return Arrays.equals(view.claim(key), nonce);
        }

        @Override
        public boolean claimed(String key) {
            return view.claim(key) != null;
        }

        @Override
        public List<String> keys(String prefix) {
            return view.keys(prefix);
        }

        @Override
        public void forget(String key) {
            view.apply(key, null, null, "t");
        }

        private byte[] nonce() {
            return java.nio.ByteBuffer.allocate(16).putLong(++nonces).array();
        }
    }

    static List<Recording> recordings() {
        try (Stream<Path> generators = Files.list(root())) {
            return generators.sorted().map(g -> g.resolve("approver")).filter(Files::isDirectory).map(dir -> {
                Map<String, String> facts = new LinkedHashMap<>();
                for (String line : lines(dir.resolve("facts.tsv"))) {
                    String[] kv = line.split("\t", 2);
                    facts.put(kv[0], kv[1]);
                }
                return new Recording(dir.getParent().getFileName().toString(), dir, facts);
            }).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path root() {
        try {
            return Path.of(RecordedApproverStateTest.class.getResource("/recorded").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8).stream()
                    .filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The recorded state of {@code r}, applied record by record in log order. */
    static ViewState replay(Recording r) {
        ViewState state = new ViewState();
        for (String line : lines(r.dir().resolve("state.tsv"))) {
            String[] f = line.split("\t");
            byte[] bytes;
            try {
                bytes = Files.readAllBytes(r.dir().resolve(f[0]));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            StateRecord record = StateRecord.parse(bytes, null, r.generator() + "/" + f[0]);
            assertThat(record).as("%s/%s is a state record", r.generator(), f[0]).isNotNull();
            assertThat(record.type()).isEqualTo(Byte.parseByte(f[1]));
            assertThat(record.version()).isEqualTo(Long.parseLong(f[3]));
            assertThat(state.view.apply(f[2], bytes, null, f[0])).isTrue();
        }
        return state;
    }

    static Sealer sealer(Recording r) {
        String[] kv = r.facts().get("sealing.key").split("=", 2);
        Map<String, byte[]> keys = new LinkedHashMap<>();
        keys.put(kv[0], Base64.getUrlDecoder().decode(kv[1]));
        return new Sealer(keys);
    }

    /** The generators' sample bytes (schemas-avro's test {@code Fill.bytes}). */
    static byte[] sample(String name, int n) throws NoSuchAlgorithmException {
        byte[] out = new byte[n];
        for (int i = 0; i * 32 < n; i++) {
            byte[] d = MessageDigest.getInstance("SHA-256").digest((name + "#" + i).getBytes(StandardCharsets.UTF_8));
            System.arraycopy(d, 0, out, i * 32, Math.min(32, n - i * 32));
        }
        return out;
    }

    @Test
    void shouldRecordTheStateOfEveryReleaseThatHadTheTopic() {
        // 2fc922b created approver-state; a42d5b3 (where recorded formats start) adds the scratch and the quota records
        assertThat(recordings()).extracting(Recording::generator).containsExactly("g2-2fc922b", "g4-a42d5b3");
    }

    @Test
    void shouldKeepEveryPersonsFactorsAcrossTheUpgrade() throws Exception {
        for (Recording r : recordings()) {
            ViewState state = replay(r);
            StepUpStore factors = new StepUpStore(state, sealer(r));
            Instant later = r.now().plusSeconds(60);

            assertThat(factors.hasTotp(ORG, SUBJECT)).as(r.generator()).isTrue();
            assertThat(factors.passkeys(ORG, SUBJECT)).as(r.generator()).singleElement().satisfies(p -> {
                assertThat(p.id()).isEqualTo(r.facts().get("passkey.id"));
                assertThat(p.record().getCounter()).isEqualTo(7);
                assertThat(p.record().getAttestedCredentialData().getCOSEKey()).isNotNull();
            });
            assertThat(factors.recentFailures(ORG, SUBJECT, later)).as(r.generator()).isEqualTo(1);
            byte[] secret = HexFormat.of().parseHex(r.facts().get("totp.secret"));
            assertThat(secret).isEqualTo(sample("totp-secret", 20));
            // the sealed secret opens under the recorded key, and the last step used is still the last
            assertThat(factors.useTotp(ORG, SUBJECT, Totp.code(secret, Totp.step(later)), later)).isTrue();
            assertThat(factors.useTotp(ORG, SUBJECT, Totp.code(secret, Totp.step(later)), later))
                    .as("the same step is not accepted twice").isFalse();
        }
    }

    @Test
    void shouldKeepSessionsSignOutsAndChallengesAcrossTheUpgrade() throws Exception {
        for (Recording r : recordings()) {
            ViewState state = replay(r);
            Clock clock = Clock.fixed(r.now().plusSeconds(60), ZoneOffset.UTC);
            Sessions sessions = new Sessions(state, sealer(r), Duration.ofHours(1), Duration.ofHours(8), clock);
            String cookie = lines(r.dir().resolve("session-cookie.txt")).get(0);

            Optional<Session> open = sessions.find(cookie);
            assertThat(open).as("%s: the session cookie still opens its session", r.generator()).isPresent();
            assertThat(open.get().id()).isEqualTo(r.facts().get("session.open"));
            assertThat(open.get().identity().subject()).isEqualTo(SUBJECT);
            assertThat(open.get().identity().org()).isEqualTo(ORG);
            // a one-time code app being set up: in the shared state since 09c1d0d, in the cookie before (dropped)
            assertThat(open.get().pendingTotpSecret()).as(r.generator())
                    .isEqualTo(r.generator().equals("g2-2fc922b") ? null : sample("pending-totp", 20));
            assertThat(sessions.signedOut(r.facts().get("session.ended"))).as(r.generator()).isTrue();
            assertThat(sessions.signedOut(r.facts().get("session.open"))).isFalse();

            Challenges challenges = new Challenges(state, Duration.ofMinutes(5), clock);
            assertThat(challenges.consume(r.facts().get("challenge.used"), open.get().id(), SUBJECT, KEY).ok())
                    .as("%s: a used challenge stays used", r.generator()).isFalse();
            // the quota of open forms (since 3cf7c97) still counts the open one: one place less
            int issued = 0;
            while (challenges.issue(open.get().id(), SUBJECT, "T-1/call-" + issued, "sha256:x") != null) {
                issued++;
            }
            assertThat(issued).as(r.generator()).isEqualTo(r.generator().equals("g2-2fc922b")
                    ? Challenges.MAX_OPEN_PER_SESSION : Challenges.MAX_OPEN_PER_SESSION - 1);
            assertThat(challenges.consume(r.facts().get("challenge.issued"), open.get().id(), SUBJECT, KEY).ok())
                    .as("%s: the open challenge is still good once", r.generator()).isTrue();
        }
    }
}
