package io.actiongate.cli.commands;

import io.actiongate.cli.ExitCodes;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.TypeConversionException;

import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.contract.ContractLimits;
import io.actiongate.digest.DecisionSigning;
import io.actiongate.key.ActionKey;
import io.actiongate.key.Partitioning;
import io.actiongate.keyfiles.KeyFiles;
import io.actiongate.serde.AvroSetup;
import io.actiongate.topics.Topics;

/**
 * {@code actiongate decide TASK CALL --type ...}: builds a {@link Decision} bound to the action's digest, signs it
 * with an Ed25519 key file and produces it to {@code decisions}. The digest comes from the gate (what the gate holds
 * is what gets approved) unless {@code --digest} gives it.
 */
@Command(name = "decide", description = "Sign and publish an approval, rejection or owner resolution for an action.")
public final class DecideCommand extends OperatorCommand implements ExitCodes.Own {

    @Override
    public int[] ownExitCodes() {
        return new int[] {ExitCodes.NOT_FOUND};
    }

    static final Pattern DIGEST = Pattern.compile("sha256:[0-9a-f]{64}");

    @Parameters(index = "0", paramLabel = "TASK", description = "task_id of the action.")
    String taskId;

    @Parameters(index = "1", paramLabel = "CALL", description = "tool_call_id of the action.")
    String toolCallId;

    @Option(names = "--type", required = true, paramLabel = "TYPE", converter = DecisionTypeConverter.class,
            description = "APPROVE, REJECT, RESOLVE_EFFECT_CONFIRMED or RESOLVE_NO_EFFECT (any case).")
    DecisionType type;

    static final class DecisionTypeConverter implements ITypeConverter<DecisionType> {
        @Override
        public DecisionType convert(String value) {
            try {
                return DecisionType.valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("expected one of " + List.of(DecisionType.values())
                        + ", was '" + value + "'");
            }
        }
    }

    @Option(names = "--key", required = true, paramLabel = "FILE", description = "Ed25519 private key (PKCS#8 PEM).")
    Path keyFile;

    @Option(names = "--key-id", paramLabel = "ID",
            description = "Id of the signing key as the gate trusts it (default: the key file name without .key).")
    String keyId;

    @Option(names = "--approver", required = true, paramLabel = "SUBJECT", description = "Who decides.")
    String approver;

    @Option(names = "--org", required = true, paramLabel = "ORG", description = "The approver's organisation.")
    String org;

    @Option(names = "--auth-method", defaultValue = "key-file", paramLabel = "METHOD",
            description = "How the approver was authenticated (default: ${DEFAULT-VALUE}).")
    String authMethod;

    @Option(names = "--ttl", defaultValue = "15m", converter = DurationConverter.class, paramLabel = "DURATION",
            description = "How long the decision stays valid (default: ${DEFAULT-VALUE}).")
    Duration ttl;

    @ArgGroup(exclusive = true)
    DigestSource digestSource = new DigestSource();

    static final class DigestSource {
        @Option(names = "--digest", paramLabel = "sha256:HEX",
                description = "The action digest to sign, instead of asking the gate.")
        String digest;

        @Option(names = "--gate-url", paramLabel = "URL",
                description = "Gate HTTP surface to read the action digest from (default: " + GateClient.DEFAULT_URL
                        + ").")
        String gateUrl;
    }

    @Mixin
    KafkaOptions kafka = new KafkaOptions();

    @Mixin
    GateAuthOptions auth = new GateAuthOptions();

    @Override
    int execute() throws Exception {
        ActionKey key = actionKey(taskId, toolCallId);
        if (ttl.isNegative() || ttl.isZero()) {
            throw new CommandFailure("--ttl must be positive");
        }
        String id = keyId != null ? keyId : defaultKeyId(keyFile);
        KeyFiles.requireValidKeyId(id);
        PrivateKey privateKey = KeyFiles.readPrivateKey(keyFile);
        String digest = actionDigest(key);
        Instant now = Instant.now();
        Decision decision = TopicWriter.writeOne(kafka, Topics.DECISIONS, key.toString(), partitions ->
                signed(key, type, digest, approver, org, authMethod, ttl, id, privateKey, now, partitions));
        out().println(decision.getDecisionId());
        out().flush();
        return 0;
    }

    /** Builds and signs a decision; {@code decision_id} is a fresh random UUID. */
    public static Decision signed(ActionKey key, DecisionType type, String actionDigest, String approver, String org,
                                  String authMethod, Duration ttl, String keyId, PrivateKey privateKey, Instant now) {
        return signed(key, type, actionDigest, approver, org, authMethod, ttl, keyId, privateKey, now, 1);
    }

    /**
     * Builds and signs a decision whose {@code decision_id} is a fresh random UUID on the same partition of
     * {@code decisions} (of {@code partitions}) as its action key, as the approval service chooses its ids: the gate
     * then claims and applies it in one pass, with no internal hop (docs/contract.md §2). A random id elsewhere is
     * as valid; it only waits for the gate's two hops.
     */
    public static Decision signed(ActionKey key, DecisionType type, String actionDigest, String approver, String org,
                                  String authMethod, Duration ttl, String keyId, PrivateKey privateKey, Instant now,
                                  int partitions) {
        AvroSetup.install();
        List<String> drawn = new ArrayList<>();
        String decisionId = Partitioning.colocatedDecisionId(i -> {
            while (drawn.size() <= i) {
                drawn.add(UUID.randomUUID().toString());
            }
            return drawn.get(i);
        }, key.toString(), partitions);
        Decision unsigned = Decision.newBuilder()
                .setDecisionId(decisionId)
                .setTaskId(key.taskId())
                .setToolCallId(key.toolCallId())
                .setType(type)
                .setActionDigest(actionDigest)
                .setApproverSubject(approver)
                .setApproverOrg(org)
                .setAuthMethod(authMethod)
                .setIssuedAt(now)
                .setExpiresAt(now.plus(ttl))
                .setKeyId(keyId)
                .setSignature(ByteBuffer.allocate(0))
                .build();
        return DecisionSigning.sign(unsigned, privateKey);
    }

    private String actionDigest(ActionKey key) throws InterruptedException {
        if (digestSource.digest != null) {
            return requireDigest(digestSource.digest, "--digest");
        }
        GateClient gate = new GateClient(digestSource.gateUrl == null ? GateClient.DEFAULT_URL : digestSource.gateUrl,
                auth.token());
        JsonNode state = gate.action(key).orElseThrow(() ->
                new CommandFailure("no such action: " + key, CommandFailure.NOT_FOUND, null));
        JsonNode digest = state.get("action_digest");
        if (digest == null || !digest.isTextual()) {
            throw new CommandFailure("the gate holds no action_digest for " + key + " yet");
        }
        return requireDigest(digest.asText(), "the gate's action_digest");
    }

    private static String requireDigest(String digest, String source) {
        if (!DIGEST.matcher(digest).matches()) {
            throw new CommandFailure(source + " must look like sha256:<64 lowercase hex>, was '" + digest + "'");
        }
        return digest;
    }

    static ActionKey actionKey(String task, String call) {
        if (!ActionKey.isValid(task, call)) {
            throw new CommandFailure("TASK and CALL must match " + ContractLimits.ID_PATTERN.pattern());
        }
        return new ActionKey(task, call);
    }

    private static String defaultKeyId(Path keyFile) {
        String name = keyFile.getFileName().toString();
        return name.endsWith(KeyFiles.PRIVATE_SUFFIX)
                ? name.substring(0, name.length() - KeyFiles.PRIVATE_SUFFIX.length()) : name;
    }
}
