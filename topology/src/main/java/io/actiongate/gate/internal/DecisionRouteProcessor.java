package io.actiongate.gate.internal;

import java.nio.charset.StandardCharsets;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

import io.actiongate.avro.Decision;
import io.actiongate.key.ActionKey;
import io.actiongate.serde.AvroSerde;

/**
 * The first node of the decisions topic. A decision is first claimed by its {@code decision_id} (single use across
 * the deployment), in the task that owns murmur2 of the decision id, and only then goes to its action. A well-formed
 * decision (it decodes, its ids are valid and equal its record key) goes to {@code claimLocal} when this task owns
 * its decision id, otherwise to {@code claimHop} keyed by the decision id. Anything else cannot claim or meet an
 * action: it goes to {@code refuse} (the topic's decoder), which dead-letters it here with its true source
 * position.
 */
public final class DecisionRouteProcessor implements Processor<byte[], byte[], byte[], byte[]> {

    private final AvroSerde<Decision> serde;
    private final Routing routing;
    private final String refuse;
    private final String claimLocal;
    private final String claimHop;
    private final GroupCommits commits;
    private ProcessorContext<byte[], byte[]> context;
    private int current;

    public DecisionRouteProcessor(AvroSerde<Decision> serde, Routing routing, String refuse, String claimLocal,
                                  String claimHop, GroupCommits commits) {
        this.serde = serde;
        this.commits = commits;
        this.routing = routing;
        this.refuse = refuse;
        this.claimLocal = claimLocal;
        this.claimHop = claimHop;
    }

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
        this.context = context;
        this.current = context.taskId().partition();
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        route(record);
        commits.processed(context);
    }

    private void route(Record<byte[], byte[]> record) {
        Decision d = wellFormed(record);
        if (d == null) {
            context.forward(record, refuse);
            return;
        }
        byte[] decisionId = d.getDecisionId().getBytes(StandardCharsets.UTF_8);
        if (routing.partitions() == 1 || routing.home(decisionId) == current) {
            context.forward(record, claimLocal);
        } else {
            Origin here = context.recordMetadata().map(m -> new Origin(m.topic(), m.partition(), m.offset()))
                    .orElseThrow(() -> new IllegalStateException("a routed record has no source metadata"));
            context.forward(record.withKey(decisionId).withHeaders(here.stamp(record.headers())), claimHop);
        }
    }

    /** The decision when it decodes and names a valid action key equal to its record key; otherwise null. */
    private Decision wellFormed(Record<byte[], byte[]> record) {
        if (record.key() == null || record.value() == null) {
            return null;
        }
        Decision d;
        try {
            d = serde.deserialize(null, record.value());
        } catch (RuntimeException e) {
            return null; // the decoder dead-letters it with the decoder's reason
        }
        if (d.getDecisionId() == null || !ActionKey.isValid(d.getTaskId(), d.getToolCallId())) {
            return null;
        }
        String key = ActionKey.format(d.getTaskId(), d.getToolCallId());
        return key.equals(new String(record.key(), StandardCharsets.UTF_8)) ? d : null;
    }
}
