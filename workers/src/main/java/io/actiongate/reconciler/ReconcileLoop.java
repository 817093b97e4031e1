package io.actiongate.reconciler;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.opentelemetry.api.trace.SpanKind;

import io.actiongate.avro.Reconciliation;
import io.actiongate.avro.UnknownOutcome;
import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.ConnectorRegistry;
import io.actiongate.connector.spi.LookupRequest;
import io.actiongate.connector.spi.LookupResult;
import io.actiongate.connector.spi.Tracing;
import io.actiongate.key.ActionKey;
import io.actiongate.key.ActionLogContext;
import io.actiongate.secrets.Redaction;
import io.actiongate.serde.AvroDecodeException;
import io.actiongate.serde.AvroSerde;
import io.actiongate.serde.TraceHeaders;
import io.actiongate.serde.UnknownFormatException;
import io.actiongate.serde.WireEnums;

/**
 * The reconciler's poll loop. Each unknown outcome becomes a job with a due time; inconclusive lookups are
 * rescheduled with {@link Backoff} instead of sleeping, so the loop keeps polling. A partition with open jobs is
 * paused; when all its jobs produced their reconciliation (acknowledged), its offsets are committed and it is
 * resumed. A crash or a lost partition therefore re-reads unreconciled outcomes (at least once); a reconciliation
 * produced twice is harmless because the gate ignores the second.
 */
final class ReconcileLoop implements ConsumerRebalanceListener {

    private static final Logger LOG = LoggerFactory.getLogger(ReconcileLoop.class);

    private final Consumer<String, byte[]> consumer;
    private final Producer<String, Reconciliation> producer;
    private final Deserializer<UnknownOutcome> unknownOutcomes;
    private final String inputTopic;
    private final String outputTopic;
    private final ConnectorRegistry connectors;
    private final int maxLookups;
    private final Backoff backoff;
    private final Duration pollTimeout;
    private final Duration lookupBudget;
    private final Clock clock;
    private final ReconcilerMetrics metrics;
    private final Map<TopicPartition, PartitionWork> open = new LinkedHashMap<>();

    ReconcileLoop(Consumer<String, byte[]> consumer, Producer<String, Reconciliation> producer,
                  Deserializer<UnknownOutcome> unknownOutcomes, String inputTopic, String outputTopic,
                  ConnectorRegistry connectors, int maxLookups, Backoff backoff, Duration pollTimeout,
                  Duration lookupBudget, Clock clock, ReconcilerMetrics metrics) {
        this.consumer = consumer;
        this.producer = producer;
        this.unknownOutcomes = unknownOutcomes;
        this.inputTopic = inputTopic;
        this.outputTopic = outputTopic;
        this.connectors = connectors;
        this.maxLookups = maxLookups;
        this.backoff = backoff;
        this.pollTimeout = pollTimeout;
        this.lookupBudget = lookupBudget;
        this.clock = clock;
        this.metrics = metrics;
    }

    void subscribe() {
        consumer.subscribe(List.of(inputTopic), this);
    }

    /** One poll, the due lookups, and the commits of finished partitions. */
    void pollOnce() {
        ConsumerRecords<String, byte[]> records = consumer.poll(nextPollTimeout());
        Instant now = clock.instant();
        for (TopicPartition partition : records.partitions()) {
            List<ConsumerRecord<String, byte[]>> batch = records.records(partition);
            PartitionWork work = open.computeIfAbsent(partition, p -> new PartitionWork(batch.get(0).offset()));
            for (ConsumerRecord<String, byte[]> record : batch) {
                UnknownOutcome unknown = decode(record);
                if (unknown != null) {
                    Job job = new Job(record.offset(), unknown, now);
                    job.trace = TraceHeaders.read(record.headers());
                    work.jobs.add(job);
                }
                work.nextOffset = record.offset() + 1;
            }
            consumer.pause(List.of(partition));
        }
        runDueLookups();
        completeFinishedPartitions();
        metrics.setOpen(openJobs());
    }

    private Duration nextPollTimeout() {
        Instant now = clock.instant();
        Duration timeout = pollTimeout;
        for (PartitionWork work : open.values()) {
            for (Job job : work.jobs) {
                if (job.reconciliation == null) {
                    Duration untilDue = Duration.between(now, job.due);
                    if (untilDue.compareTo(timeout) < 0) {
                        timeout = untilDue.isNegative() ? Duration.ZERO : untilDue;
                    }
                }
            }
        }
        return timeout;
    }

    private UnknownOutcome decode(ConsumerRecord<String, byte[]> record) {
        if (record.value() == null) {
            return null;
        }
        try {
            return unknownOutcomes.deserialize(record.topic(), record.value());
        } catch (RuntimeException e) {
            if (e instanceof AvroDecodeException && unknownOutcomes instanceof AvroSerde<?> serde) {
                // only the gate writes unknown-outcomes: a version this release does not read is a newer gate's,
                // and skipping it would leave its action UNKNOWN unasked; stop before anything of it is committed
                UnknownFormatException newer = serde.newerVersion(record);
                if (newer != null) {
                    throw newer;
                }
            }
            metrics.recordUndecodable();
            LOG.warn("skipping undecodable unknown outcome at {}-{}@{} ({})", record.topic(), record.partition(),
                    record.offset(), e.getClass().getSimpleName());
            return null;
        }
    }

    private void runDueLookups() {
        long deadline = System.nanoTime() + lookupBudget.toNanos();
        for (PartitionWork work : open.values()) {
            for (Job job : work.jobs) {
                if (System.nanoTime() - deadline > 0) {
                    return;
                }
                if (job.reconciliation == null && !clock.instant().isBefore(job.due)) {
                    ActionLogContext.Scope logged = ActionLogContext.enter(job.unknown.getTaskId(),
                            job.unknown.getToolCallId());
                    Tracing.Scope traced = Tracing.continueTrace(job.trace, "actiongate.reconcile",
                            SpanKind.CONSUMER);
                    try (logged; traced) {
                        step(job);
                    }
                }
            }
        }
    }

    /** One lookup for {@code job}: a verdict, or a later due time. */
    private void step(Job job) {
        UnknownOutcome unknown = job.unknown;
        Optional<Connector> connector = connectors.find(unknown.getProvider());
        if (connector.isEmpty()) {
            finish(job, LookupResult.stillUnknown("no connector for provider " + unknown.getProvider()));
            return;
        }
        LookupResult result;
        try {
            result = connector.get().lookup(new LookupRequest(unknown.getTaskId(), unknown.getToolCallId(),
                    unknown.getAttempt(), unknown.getIdempotencyKey(), unknown.getOrgId(), unknown.getProvider(),
                    unknown.getOperation(), unknown.getInputJson()));
        } catch (RuntimeException e) {
            LOG.warn("lookup by {} threw {} for attempt {} of {}/{}", unknown.getProvider(),
                    e.getClass().getSimpleName(), unknown.getAttempt(), unknown.getTaskId(),
                    unknown.getToolCallId());
            result = LookupResult.stillUnknown("lookup failed: " + e.getClass().getSimpleName());
        }
        job.lookups++;
        metrics.recordLookup(unknown.getProvider(), result.verdict().name());
        if (result.verdict() != LookupResult.Verdict.STILL_UNKNOWN || job.lookups >= maxLookups) {
            finish(job, result);
        } else {
            job.due = clock.instant().plus(backoff.delayAfter(job.lookups));
        }
    }

    private void finish(Job job, LookupResult result) {
        UnknownOutcome unknown = job.unknown;
        String evidence = Redaction.redact(result.evidence());
        Reconciliation reconciliation = Reconciliation.newBuilder()
                .setTaskId(unknown.getTaskId())
                .setToolCallId(unknown.getToolCallId())
                .setAttempt(unknown.getAttempt())
                .setVerdict(WireEnums.wire(result.verdict()))
                .setEvidence(evidence == null ? "" : evidence)
                .setLookups(job.lookups)
                .setProviderReceiptId(Redaction.receiptId(result.providerReceiptId()))
                .setCheckedAt(clock.instant())
                .build();
        job.reconciliation = reconciliation;
        ProducerRecord<String, Reconciliation> record = new ProducerRecord<>(outputTopic,
                ActionKey.format(unknown.getTaskId(), unknown.getToolCallId()), reconciliation);
        TraceHeaders.write(record.headers(), Tracing.currentHeaders());
        job.ack = producer.send(record);
        LOG.info("attempt {} of {}/{}: {} after {} lookup(s)", unknown.getAttempt(), unknown.getTaskId(),
                unknown.getToolCallId(), reconciliation.getVerdict(), job.lookups);
    }

    /** Commits and resumes partitions whose every job has an acknowledged reconciliation. */
    private void completeFinishedPartitions() {
        Iterator<Map.Entry<TopicPartition, PartitionWork>> it = open.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<TopicPartition, PartitionWork> entry = it.next();
            PartitionWork work = entry.getValue();
            if (work.jobs.stream().anyMatch(job -> job.reconciliation == null)) {
                continue;
            }
            TopicPartition partition = entry.getKey();
            it.remove();
            if (!acknowledged(work.jobs)) {
                // nothing committed: read the batch again, duplicates are harmless
                rewind(partition, work.firstOffset);
                continue;
            }
            for (Job job : work.jobs) {
                metrics.recordReconciliation(job.unknown.getProvider(), job.reconciliation.getVerdict().name());
            }
            commit(Map.of(partition, new OffsetAndMetadata(work.nextOffset)));
            consumer.resume(List.of(partition));
        }
    }

    private boolean acknowledged(List<Job> jobs) {
        for (Job job : jobs) {
            try {
                job.ack.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } catch (ExecutionException | KafkaException e) {
                LOG.error("could not produce the reconciliation of attempt {} of {}/{} ({}); will reconcile again",
                        job.unknown.getAttempt(), job.unknown.getTaskId(), job.unknown.getToolCallId(),
                        (e.getCause() == null ? e : e.getCause()).getClass().getSimpleName());
                return false;
            }
        }
        return true;
    }

    private void commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
        try {
            consumer.commitSync(offsets);
        } catch (KafkaException e) {
            // the partition moved on; its new owner re-reads and reconciles again (duplicates are harmless)
            LOG.warn("commit of reconciled offsets failed ({})", e.getClass().getSimpleName());
            if (e instanceof InterruptException) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void rewind(TopicPartition partition, long offset) {
        if (consumer.assignment().contains(partition)) {
            consumer.seek(partition, offset);
            consumer.resume(List.of(partition));
        }
    }

    int openJobs() {
        int count = 0;
        for (PartitionWork work : open.values()) {
            for (Job job : work.jobs) {
                if (job.reconciliation == null) {
                    count++;
                }
            }
        }
        return count;
    }

    /** Commits what is finished and acknowledged of the revoked partitions, forgets the rest. */
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (TopicPartition partition : partitions) {
            PartitionWork work = open.remove(partition);
            if (work == null) {
                continue;
            }
            long committable = work.firstOffset;
            boolean allDone = true;
            for (Job job : work.jobs) {
                if (job.reconciliation == null || !acknowledged(List.of(job))) {
                    allDone = false;
                    committable = job.offset;
                    break;
                }
                committable = job.offset + 1;
            }
            if (allDone) {
                committable = work.nextOffset;
            }
            if (committable > work.firstOffset) {
                offsets.put(partition, new OffsetAndMetadata(committable));
            }
        }
        if (!offsets.isEmpty()) {
            commit(offsets);
        }
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
        partitions.forEach(open::remove);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        // positions come from the committed offsets: open work of a previous owner is read again
    }

    /** Open work of one paused partition: the batch read from {@code firstOffset} up to {@code nextOffset}. */
    private static final class PartitionWork {
        private final long firstOffset;
        private long nextOffset;
        private final List<Job> jobs = new ArrayList<>();

        PartitionWork(long firstOffset) {
            this.firstOffset = firstOffset;
            this.nextOffset = firstOffset;
        }
    }

    private static final class Job {
        private final long offset;
        private final UnknownOutcome unknown;
        private Instant due;
        private int lookups;
        private Reconciliation reconciliation;
        private Future<RecordMetadata> ack;
        private Map<String, String> trace = Map.of();

        Job(long offset, UnknownOutcome unknown, Instant due) {
            this.offset = offset;
            this.unknown = unknown;
            this.due = due;
        }
    }
}
