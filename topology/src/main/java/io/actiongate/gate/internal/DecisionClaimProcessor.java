package io.actiongate.gate.internal;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.Decision;
import io.actiongate.contract.ReasonCode;
import io.actiongate.digest.Digests;
import io.actiongate.gate.GateConfig;
import io.actiongate.gate.GateStores;
import io.actiongate.key.ActionKey;
import io.actiongate.policy.Rejection;
import io.actiongate.serde.AvroSerde;

/**
 * Makes a {@code decision_id} single use across the deployment. Runs in the task that owns murmur2 of the
 * decision id, so every decision carrying one id meets the same {@code gate-decision-claims} entry, whichever
 * action it names and whichever partition it was produced to. The first validly signed decision with an id
 * claims it; that same signed decision may pass again (a redelivery: at its action it changes nothing twice); any
 * other decision with the id is refused {@code APPROVAL_REUSED}. A decision whose signature does not verify
 * claims nothing and is refused {@code APPROVAL_SIGNATURE_INVALID}, so a forger cannot burn someone else's id.
 * A claimed decision then goes to its action: on to {@code decide} when this task also owns the action key,
 * otherwise through {@code hop} (keyed by the action key).
 *
 * <p>A decision claimed where it was read arrives decoded ({@link Inbound}, from {@link DecisionRouteProcessor});
 * one read back from the claims hop arrives as its raw bytes and is decoded here, once.
 */
public final class DecisionClaimProcessor implements Processor<Object, Object, Object, Object> {

    private static final Logger LOG = LoggerFactory.getLogger(DecisionClaimProcessor.class);

    private final GateConfig config;
    private final AvroSerde<Decision> serde;
    private final Routing routing;
    private final String decide;
    private final String hop;
    private final Set<String> hopTopics;
    private final DecisionVerifier verifier;
    private final GroupCommits commits;
    private ProcessorContext<Object, Object> context;
    private KeyValueStore<String, DecisionClaim> claims;
    private KeyValueStore<String, String> timers;
    private int current;

    public DecisionClaimProcessor(GateConfig config, AvroSerde<Decision> serde, Routing routing, String decide,
                                  String hop, Set<String> hopTopics, GroupCommits commits) {
        this.config = config;
        this.commits = commits;
        this.hopTopics = Set.copyOf(hopTopics);
        this.serde = serde;
        this.routing = routing;
        this.decide = decide;
        this.hop = hop;
        this.verifier = new DecisionVerifier(config.trustedKeys(), config.approvers());
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        this.context = context;
        this.claims = context.getStateStore(GateStores.DECISION_CLAIMS);
        this.timers = context.getStateStore(GateStores.TIMERS);
        this.current = context.taskId().partition();
    }

    @Override
    public void process(Record<Object, Object> record) {
        claim(record);
        if (Origin.readFromHop(context, hopTopics)) {
            commits.processed(context); // read back from the claims hop: an input of its own
        }
    }

    private void claim(Record<Object, Object> record) {
        Origin origin;
        Decision d;
        byte[] raw;
        if (record.value() instanceof Inbound<?> decoded) {
            origin = decoded.origin();
            d = (Decision) decoded.value();
            raw = decoded.rawValue();
        } else {
            origin = Origin.of(context, record.headers(), hopTopics);
            raw = (byte[]) record.value();
            try {
                d = serde.deserialize(null, raw);
            } catch (RuntimeException e) {
                // the route decoded it before; only a record written to the hop topic by someone else gets here
                DeadLetters.send(context, origin, (byte[]) record.key(), raw, ReasonCode.SCHEMA_INVALID,
                        "Decision does not decode: " + e.getClass().getSimpleName());
                return;
            }
        }
        if (!ActionKey.isValid(d.getTaskId(), d.getToolCallId())) {
            DeadLetters.send(context, origin, (byte[]) record.key(), raw, ReasonCode.INVALID_IDENTIFIER,
                    "task_id/tool_call_id are not valid identifiers");
            return;
        }
        String actionKey = ActionKey.format(d.getTaskId(), d.getToolCallId());
        byte[] actionKeyBytes = actionKey.getBytes(StandardCharsets.UTF_8);
        Optional<Rejection> forged = verifier.verifySignature(d);
        if (forged.isPresent()) {
            DeadLetters.send(context, origin, actionKeyBytes, raw, forged.get().code(),
                    forged.get().reason());
            return;
        }
        String id = d.getDecisionId();
        String fingerprint = fingerprint(d);
        DecisionClaim claim = claims.get(id);
        if (claim != null && !claim.fingerprint().equals(fingerprint)) {
            DeadLetters.send(context, origin, actionKeyBytes, raw, ReasonCode.APPROVAL_REUSED,
                    claim.actionKey().equals(actionKey)
                            ? "decision_id was already used by another decision for this action"
                            : "decision_id was already used by a decision for another action");
            return;
        }
        if (claim == null) {
            long now = context.currentSystemTimeMs();
            claims.put(id, DecisionClaim.of(actionKey, fingerprint, now));
            // kept for the dedupe window, and at least as long as the decision itself could still be valid
            long due = Math.max(now + config.dedupeWindow().toMillis(), d.getExpiresAt().toEpochMilli() + 1);
            timers.put(Timers.key(due, Timers.Kind.PURGE_CLAIM, id), id);
            LOG.debug("decision {} claimed for action {}", id, actionKey);
        }
        if (routing.home(actionKeyBytes) == current) {
            Inbound<Decision> in = new Inbound<>(d, actionKeyBytes, raw, origin, true);
            context.forward(new Record<Object, Object>(actionKey, in, record.timestamp(), record.headers()), decide);
        } else {
            context.forward(new Record<Object, Object>(actionKeyBytes, raw, record.timestamp(),
                    origin == null ? record.headers() : origin.stamp(record.headers())), hop);
        }
    }

    /** Names one signed decision: the key id and the SHA-256 of its (deterministic Ed25519) signature. */
    static String fingerprint(Decision d) {
        ByteBuffer signature = d.getSignature().duplicate();
        byte[] sig = new byte[signature.remaining()];
        signature.get(sig);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(d.getKeyId().getBytes(StandardCharsets.UTF_8));
        out.write(0);
        out.writeBytes(sig);
        return Digests.sha256Hex(out.toByteArray());
    }
}
