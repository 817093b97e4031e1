package io.actiongate.approver.decision;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.digest.DecisionSigning;
import io.actiongate.kafka.KafkaClients;
import io.actiongate.key.ActionKey;
import io.actiongate.serde.AvroSerdes;
import io.actiongate.topics.Topics;

/**
 * Signs a {@link Decision} with the service's key and publishes it to {@code decisions} with an idempotent producer
 * ({@code acks=all}), waiting for the broker's acknowledgement. Whether a decision is published at most once per
 * review is the caller's job (a single-use challenge); the idempotent producer makes sure its own retries never
 * write it twice.
 */
public final class DecisionPublisher implements DecisionSink, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DecisionPublisher.class);

    /** What one decision binds. */
    public record Request(String decisionId, String taskId, String toolCallId, DecisionType type, String actionDigest,
                          String subject, String org, String authMethod) {
    }

    private final KafkaProducer<String, byte[]> producer;
    private final String topic;
    private final SigningKey key;
    private final Duration ttl;
    /** The latest lookup of the decisions topic's partition count ({@link #partitions()}). */
    private final AtomicReference<CompletableFuture<Integer>> partitionCount =
            new AtomicReference<>(CompletableFuture.failedFuture(new IllegalStateException("not looked up yet")));

    public DecisionPublisher(String bootstrapServers, Map<String, String> clientOverrides, String topicPrefix,
                             SigningKey key, Duration ttl) {
        this.producer = KafkaClients.of(bootstrapServers, clientOverrides).producer("actiongate-approver-decisions")
                .defaultTo(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000)
                .defaultTo(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000)
                .create(new StringSerializer(), new ByteArraySerializer());
        this.topic = Topics.DECISIONS.name(topicPrefix);
        this.key = key;
        this.ttl = ttl;
        lookUpPartitions(partitionCount.get());
    }

    /** The signed decision for {@code r}, issued at {@code now}, expiring {@code ttl} later. */
    public static Decision signed(Request r, SigningKey key, Duration ttl, Instant now) {
        Decision unsigned = Decision.newBuilder()
                .setDecisionId(r.decisionId())
                .setTaskId(r.taskId())
                .setToolCallId(r.toolCallId())
                .setType(r.type())
                .setActionDigest(r.actionDigest())
                .setApproverSubject(r.subject())
                .setApproverOrg(r.org())
                .setAuthMethod(r.authMethod())
                .setIssuedAt(now)
                .setExpiresAt(now.plus(ttl))
                .setKeyId(key.keyId())
                .setSignature(ByteBuffer.allocate(0))
                .build();
        return DecisionSigning.sign(unsigned, key.privateKey());
    }

    /** Builds, signs and publishes; returns the published decision once the broker acknowledged it. */
    @Override
    public Decision publish(Request r, Instant now) throws PublishException {
        Decision signed = signed(r, key, ttl, now);
        byte[] value = AvroSerdes.serde(Decision.class).serialize(topic, signed);
        String recordKey = ActionKey.format(r.taskId(), r.toolCallId());
        try {
            producer.send(new ProducerRecord<>(topic, recordKey, value)).get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PublishException("interrupted while publishing", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new PublishException("the broker did not acknowledge the decision: "
                    + e.getClass().getSimpleName(), e);
        }
        LOG.info("published decision {} {} for {} (key {})", r.decisionId(), r.type(), recordKey, key.keyId());
        return signed;
    }

    /**
     * The decisions topic's partition count, as a lookup off the request path found it; 1 while none has answered
     * yet, which only costs a decision the gate's internal hops. A form post never waits for it: asking the producer
     * here blocked for up to {@code max.block.ms} when the broker did not answer, and the publish that follows then
     * waited as long again. A failed lookup is started anew by the next call, one at a time.
     */
    @Override
    public int partitions() {
        CompletableFuture<Integer> current = partitionCount.get();
        if (current.isCompletedExceptionally()) {
            lookUpPartitions(current);
            return 1;
        }
        return current.getNow(1);
    }

    /** Starts a lookup of the partition count unless another call already replaced {@code failed}. */
    private void lookUpPartitions(CompletableFuture<Integer> failed) {
        CompletableFuture<Integer> next = new CompletableFuture<>();
        if (!partitionCount.compareAndSet(failed, next)) {
            return;
        }
        Thread lookup = new Thread(() -> {
            try {
                next.complete(Math.max(1, producer.partitionsFor(topic).size()));
            } catch (RuntimeException e) {
                LOG.warn("partitions of {} unknown ({}): decision ids are not chosen to save the gate's hops until "
                        + "a later lookup answers", topic, e.getClass().getSimpleName());
                next.completeExceptionally(e);
            }
        }, "approver-decisions-partitions");
        lookup.setDaemon(true);
        lookup.start();
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }

    /** The decision may or may not have reached the broker. */
    public static final class PublishException extends Exception {
        private static final long serialVersionUID = 1L;

        public PublishException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
