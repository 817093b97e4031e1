package io.actiongate.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Duration;
import java.time.Instant;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.digest.DecisionSigning;
import io.actiongate.http.ActionStateQuery;
import io.actiongate.http.GateHttpServer;
import io.actiongate.http.HttpServerConfig;
import io.actiongate.key.ActionKey;
import io.actiongate.key.Partitioning;
import io.actiongate.keyfiles.KeyFiles;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

class DecideCommandTest {

    private static final String DIGEST = "sha256:" + "b".repeat(64);
    private static final Instant NOW = Instant.parse("2026-11-30T02:00:00Z");

    @TempDir
    Path dir;

    @Test
    void shouldSignADecisionThatVerifiesWithTheMatchingPublicKey() throws Exception {
        KeyFiles.GeneratedKey key = KeyFiles.generate(dir, "alice-1");
        PrivateKey privateKey = KeyFiles.readPrivateKey(key.privateKeyFile());
        PublicKey publicKey = KeyFiles.readPublicKey(key.publicKeyFile());

        Decision decision = DecideCommand.signed(new ActionKey("T-1", "c-1"), DecisionType.APPROVE, DIGEST, "alice",
                "acme", "key-file", Duration.ofMinutes(15), "alice-1", privateKey, NOW);

        assertThat(DecisionSigning.verify(decision, publicKey)).isTrue();
        assertThat(decision.getTaskId()).isEqualTo("T-1");
        assertThat(decision.getToolCallId()).isEqualTo("c-1");
        assertThat(decision.getActionDigest()).isEqualTo(DIGEST);
        assertThat(decision.getKeyId()).isEqualTo("alice-1");
        assertThat(decision.getIssuedAt()).isEqualTo(NOW);
        assertThat(decision.getExpiresAt()).isEqualTo(NOW.plus(Duration.ofMinutes(15)));
        assertThat(decision.getDecisionId()).matches("[0-9a-f-]{36}");
    }

    @Test
    void shouldNotVerifyOnceAnySignedFieldChangesOrUnderAnotherKey() throws Exception {
        KeyFiles.GeneratedKey alice = KeyFiles.generate(dir, "alice-1");
        KeyFiles.GeneratedKey mallory = KeyFiles.generate(dir, "mallory");
        Decision decision = DecideCommand.signed(new ActionKey("T-1", "c-1"), DecisionType.APPROVE, DIGEST, "alice",
                "acme", "key-file", Duration.ofMinutes(15), "alice-1",
                KeyFiles.readPrivateKey(alice.privateKeyFile()), NOW);

        Decision otherDigest = Decision.newBuilder(decision).setActionDigest("sha256:" + "c".repeat(64)).build();
        Decision longer = Decision.newBuilder(decision).setExpiresAt(NOW.plus(Duration.ofDays(1))).build();

        assertThat(DecisionSigning.verify(otherDigest, alice.publicKey())).isFalse();
        assertThat(DecisionSigning.verify(longer, alice.publicKey())).isFalse();
        assertThat(DecisionSigning.verify(decision, mallory.publicKey())).isFalse();
    }

    @Test
    void shouldGiveEveryDecisionAFreshId() throws Exception {
        PrivateKey key = KeyFiles.readPrivateKey(KeyFiles.generate(dir, "k").privateKeyFile());
        ActionKey action = new ActionKey("T-1", "c-1");

        Decision first = DecideCommand.signed(action, DecisionType.REJECT, DIGEST, "a", "o", "m", Duration.ofMinutes(1),
                "k", key, NOW);
        Decision second = DecideCommand.signed(action, DecisionType.REJECT, DIGEST, "a", "o", "m",
                Duration.ofMinutes(1), "k", key, NOW);

        assertThat(first.getDecisionId()).isNotEqualTo(second.getDecisionId());
    }

    @Test
    void shouldChooseEachFreshIdOnItsActionsPartitionSoTheGateTakesNoHop() throws Exception {
        PrivateKey key = KeyFiles.readPrivateKey(KeyFiles.generate(dir, "k").privateKeyFile());
        java.util.Set<String> ids = new java.util.HashSet<>();
        for (int i = 0; i < 50; i++) {
            ActionKey action = new ActionKey("T-" + i, "c-" + i);

            Decision decision = DecideCommand.signed(action, DecisionType.APPROVE, DIGEST, "a", "o", "m",
                    Duration.ofMinutes(1), "k", key, NOW, 12);

            assertThat(Partitioning.home(decision.getDecisionId(), 12)).as(decision.getDecisionId())
                    .isEqualTo(Partitioning.home(action.toString(), 12));
            assertThat(decision.getDecisionId()).matches("[0-9a-f-]{36}");
            ids.add(decision.getDecisionId());
        }
        assertThat(ids).as("every id fresh").hasSize(50);
    }

    @Test
    void shouldExitWithNotFoundWhenTheGateDoesNotKnowTheAction() throws Exception {
        KeyFiles.generate(dir, "alice-1");
        try (GateHttpServer gate = gateKnowing(null)) {
            Cli.Result result = decide("--gate-url", "http://127.0.0.1:" + gate.port());

            assertThat(result.exitCode()).isEqualTo(CommandFailure.NOT_FOUND);
            assertThat(result.err()).isEqualTo("error: no such action: T-1/c-1\n");
            assertThat(result.out()).isEmpty();
        }
    }

    @Test
    void shouldRefuseWhenTheGateHoldsNoDigestYet() throws Exception {
        KeyFiles.generate(dir, "alice-1");
        ObjectNode state = new ObjectMapper().createObjectNode().put("status", "REJECTED");
        try (GateHttpServer gate = gateKnowing(state)) {
            Cli.Result result = decide("--gate-url", "http://127.0.0.1:" + gate.port());

            assertThat(result.exitCode()).isEqualTo(1);
            assertThat(result.err()).contains("no action_digest");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sha256:abc", "md5:" + "0123456789abcdef0123456789abcdef", "SHA256:x"})
    void shouldRejectMalformedDigestsBeforeTalkingToKafka(String digest) throws Exception {
        KeyFiles.generate(dir, "alice-1");

        Cli.Result result = decide("--digest", digest);

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).startsWith("error: --digest must look like sha256:").hasLineCount(1);
    }

    @Test
    void shouldRejectInvalidIdsAndBadOptionsWithOneLine() throws Exception {
        KeyFiles.generate(dir, "alice-1");

        Cli.Result badId = Cli.run("decide", "T 1", "c-1", "--type", "APPROVE", "--key",
                dir.resolve("alice-1.key").toString(), "--approver", "a", "--org", "o", "--digest", DIGEST);
        Cli.Result missingKey = Cli.run("decide", "T-1", "c-1", "--type", "APPROVE", "--key",
                dir.resolve("nobody.key").toString(), "--approver", "a", "--org", "o", "--digest", DIGEST);
        Cli.Result badTtl = decide("--digest", DIGEST, "--ttl", "soon");

        assertThat(badId.exitCode()).isNotZero();
        assertThat(badId.err()).startsWith("error: TASK and CALL must match");
        assertThat(missingKey.exitCode()).isEqualTo(1);
        assertThat(missingKey.err()).startsWith("error: no such file:").hasLineCount(1);
        assertThat(badTtl.exitCode()).isNotZero();
        assertThat(badTtl.err()).contains("soon");
    }

    @Test
    void shouldShowHelp() {
        Cli.Result result = Cli.run("decide", "--help");

        assertThat(result.exitCode()).isZero();
        assertThat(result.out()).contains("--type").contains("--gate-url").contains("--bootstrap-servers");
    }

    private Cli.Result decide(String... extra) {
        String[] base = {"decide", "T-1", "c-1", "--type", "approve", "--key", dir.resolve("alice-1.key").toString(),
            "--approver", "alice", "--org", "acme", "--bootstrap-servers", "127.0.0.1:1"};
        String[] args = new String[base.length + extra.length];
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        return Cli.run(args);
    }

    static GateHttpServer gateKnowing(ObjectNode state) {
        return gateKnowing(state, HttpServerConfig.loopbackEphemeral());
    }

    static GateHttpServer gateKnowing(ObjectNode state, HttpServerConfig config) {
        ActionStateQuery query = new ActionStateQuery() {
            @Override
            public Route route(String actionKey) {
                return new Local();
            }

            @Override
            public java.util.Optional<com.fasterxml.jackson.databind.JsonNode> localState(String actionKey) {
                return "T-1/c-1".equals(actionKey) ? java.util.Optional.ofNullable(state) : java.util.Optional.empty();
            }
        };
        return new GateHttpServer(config, query, new PrometheusRegistry(), () -> true).start();
    }
}
