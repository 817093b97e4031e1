package io.actiongate.loadtest.baselines;

import java.time.Instant;
import java.util.List;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.topics.Topics;

/**
 * The baseline every figure is divided by: a Kafka Streams topology that does only the unavoidable part of the
 * gate's work for one action. It reads the same ActionProposal bytes, decodes them with the same Avro serde, and
 * writes one Receipt of about the size the gate writes (same ids, tool, provider, operation and two digest-length
 * strings), encoded with the same serde. No state store, no policy, no digest, no credential scan.
 */
public final class PassThroughTopology {

    public static final String SOURCE = "baseline-source";
    public static final String PROCESS = "baseline-receipt";
    public static final String SINK = "baseline-sink";

    private PassThroughTopology() {
    }

    public static Topology build(String inputTopic, String outputTopic) {
        Topology t = new Topology();
        t.addSource(SOURCE, Serdes.String().deserializer(), Serdes.ByteArray().deserializer(), inputTopic);
        t.addProcessor(PROCESS, ToReceipt::new, SOURCE);
        t.addSink(SINK, outputTopic, Serdes.String().serializer(), Topics.RECEIPTS.valueSerde().serializer(),
                PROCESS);
        return t;
    }

    /** Decode, map, forward: the serde and Streams cost of one record in, one record out. */
    public static final class ToReceipt implements Processor<String, byte[], String, Receipt> {

        private ProcessorContext<String, Receipt> context;

        @Override
        public void init(ProcessorContext<String, Receipt> context) {
            this.context = context;
        }

        @Override
        public void process(Record<String, byte[]> record) {
            ActionProposal p = Topics.PROPOSALS.valueSerde().deserializer().deserialize(null, record.value());
            context.forward(record.withValue(receipt(p, context.currentSystemTimeMs())));
        }
    }

    public static Receipt receipt(ActionProposal p, long now) {
        return Receipt.newBuilder()
                .setTaskId(p.getTaskId())
                .setToolCallId(p.getToolCallId())
                .setStatus(ReceiptStatus.DISPATCHING)
                .setReasonCode(null)
                .setReason(null)
                .setOrgId(p.getOrgId())
                .setToolName(p.getToolName())
                .setProvider(p.getProvider())
                .setOperation(p.getOperation())
                .setInputDigest(p.getInputDigest())
                .setActionDigest(p.getInputDigest())
                .setDecisionId(null)
                .setAttempts(List.of())
                .setProviderReceiptId(null)
                .setResolvedBy(null)
                .setUpdatedAt(Instant.ofEpochMilli(now))
                .build();
    }
}
