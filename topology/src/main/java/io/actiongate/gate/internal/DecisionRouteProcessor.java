package io.actiongate.gate.internal;

import java.nio.charset.StandardCharsets;
import java.util.Set;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

import io.actiongate.avro.Decision;
import io.actiongate.key.ActionKey;
import io.actiongate.serde.AvroSerde;

/**
 * The first node of the decisions topic, and the one place a decision read from it is decoded. A decision is first
 * claimed by its {@code decision_id} (single use across the deployment), in the task that owns murmur2 of the
 * decision id, and only then goes to its action. A value that does not decode is dead-lettered here
 * ({@link Decoder}, with the topic's decoder's reason and the record's own position); a tombstone is ignored. A
 * well-formed decision (its ids are valid and equal its record key) goes, decoded, to {@code claimLocal} when this
 * task owns its decision id, otherwise as its raw bytes to {@code claimHop} keyed by the decision id. A decision
 * that decodes but is not well formed cannot claim: it goes, decoded, to {@code decide}, which refuses it.
 */
public final class DecisionRouteProcessor implements Processor<byte[], byte[], Object, Object> {

    private final Decoder<Decision> decoder;
    private final Routing routing;
    private final String decide;
    private final String claimLocal;
    private final String claimHop;
    private final GroupCommits commits;
    private ProcessorContext<Object, Object> context;
    private int current;

    public DecisionRouteProcessor(AvroSerde<Decision> serde, Routing routing, String decide, String claimLocal,
                                  String claimHop, GroupCommits commits) {
        this.decoder = new Decoder<>(serde);
        this.commits = commits;
        this.routing = routing;
        this.decide = decide;
        this.claimLocal = claimLocal;
        this.claimHop = claimHop;
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        this.context = context;
        this.current = context.taskId().partition();
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        route(record);
        commits.processed(context);
    }

    private void route(Record<byte[], byte[]> record) {
        if (record.value() == null) {
            return;
        }
        Origin here = Origin.of(context, record.headers(), Set.of());
        Decision d = decoder.decode(context, record, here);
        if (d == null) {
            return;
        }
        Inbound<Decision> in = new Inbound<>(d, record.key(), record.value(), here);
        if (!wellFormed(record, d)) {
            Decoder.forward(context, record, in, decide);
            return;
        }
        byte[] decisionId = d.getDecisionId().getBytes(StandardCharsets.UTF_8);
        if (routing.partitions() == 1 || routing.home(decisionId) == current) {
            context.forward(new Record<Object, Object>(record.key(), in, record.timestamp(), record.headers()),
                    claimLocal);
        } else {
            if (here == null) {
                throw new IllegalStateException("a routed record has no source metadata");
            }
            context.forward(new Record<Object, Object>(decisionId, record.value(), record.timestamp(),
                    here.stamp(record.headers())), claimHop);
        }
    }

    /** Whether the decision names a valid action key equal to its record key, and has a decision id. */
    private static boolean wellFormed(Record<byte[], byte[]> record, Decision d) {
        if (record.key() == null || d.getDecisionId() == null || !ActionKey.isValid(d.getTaskId(), d.getToolCallId())) {
            return false;
        }
        String key = ActionKey.format(d.getTaskId(), d.getToolCallId());
        return key.equals(new String(record.key(), StandardCharsets.UTF_8));
    }
}
