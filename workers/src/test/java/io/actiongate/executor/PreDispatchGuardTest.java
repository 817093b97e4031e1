package io.actiongate.executor;

import static io.actiongate.executor.Reservations.live;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.actiongate.avro.Attachment;
import io.actiongate.avro.AttemptOutcome;
import io.actiongate.avro.AttemptReservation;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.connector.spi.ConnectorRegistry;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.storage.PreDispatchCheck;
import io.actiongate.storage.Verification;
import io.actiongate.topics.Topics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/** The executor's pre-dispatch check: what it refuses is never handed to a connector; what it loads is. */
class PreDispatchGuardTest {

    private static final String ATTEMPTS = "actiongate.attempts";
    private static final TopicPartition P0 = new TopicPartition(ATTEMPTS, 0);

    private final List<String> events = new CopyOnWriteArrayList<>();
    private final DispatchLoopTest.RecordingConsumer consumer = new DispatchLoopTest.RecordingConsumer(events);
    private final MockProducer<String, AttemptOutcome> producer =
            new MockProducer<>(true, null, new StringSerializer(), Topics.OUTCOMES.valueSerde().serializer());
    private final ExecutorService pool = Executors.newFixedThreadPool(2);
    private final RecordingConnector webhook =
            new RecordingConnector("webhook", events, request -> DispatchResult.succeeded(200, "r-1"));
    private final DispatchLoop loop = new DispatchLoop(consumer, producer, Topics.ATTEMPTS.valueSerde().deserializer(),
            ATTEMPTS, "actiongate.outcomes", ConnectorRegistry.of(webhook), new OutcomeMapper("executor-test"),
            new ExecutorMetrics(new PrometheusRegistry()), pool, 2, Duration.ofMillis(10), Duration.ofSeconds(5),
            Clock.systemUTC(), DispatchLoop.BatchHook.NONE);

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    private static AttemptReservation withAttachment(String call) {
        Attachment a = Attachment.newBuilder().setObjectKey("attachments/T-1/" + call + "/k").setSha256("a".repeat(64))
                .setSizeBytes(3).setContentType("text/plain").setOwnerInvocationId("T-1/" + call).build();
        return AttemptReservation.newBuilder(live(call, "webhook")).setAttachments(List.of(a)).build();
    }

    private List<AttemptOutcome> run(AttemptReservation reservation) {
        loop.subscribe();
        consumer.updateBeginningOffsets(Map.of(P0, 0L));
        consumer.rebalance(List.of(P0));
        consumer.addRecord(new ConsumerRecord<>(ATTEMPTS, 0, 0, "T-1/" + reservation.getToolCallId(),
                Topics.ATTEMPTS.valueSerde().serializer().serialize(ATTEMPTS, reservation)));
        loop.pollOnce();
        assertThat(loop.awaitAll(Duration.ofSeconds(5))).isTrue();
        return producer.history().stream().map(ProducerRecord::value).toList();
    }

    @Test
    void shouldRefuseAttachmentsWithoutStorageAndSendNothing() {
        List<AttemptOutcome> outcomes = run(withAttachment("c-1"));

        assertThat(webhook.dispatched).isEmpty();
        assertThat(outcomes).singleElement().satisfies(o -> {
            assertThat(o.getStatus()).isEqualTo(OutcomeStatus.NOT_DISPATCHED);
            assertThat(o.getDispatched()).isFalse();
            assertThat(o.getErrorCode()).isEqualTo("ATTACHMENT_INVALID");
        });
    }

    @Test
    void shouldReportTheGuardsRefusalAndSendNothing() {
        loop.preDispatch(request -> new PreDispatchCheck.Refuse("TOOL_SCHEMA_CHANGED", "schema moved", false));
        List<AttemptOutcome> outcomes = run(withAttachment("c-2"));

        assertThat(webhook.dispatched).isEmpty();
        assertThat(outcomes).singleElement().satisfies(o -> {
            assertThat(o.getStatus()).isEqualTo(OutcomeStatus.NOT_DISPATCHED);
            assertThat(o.getErrorCode()).isEqualTo("TOOL_SCHEMA_CHANGED");
        });
    }

    @Test
    void shouldHandTheVerifiedBytesToTheConnector() {
        loop.preDispatch(request -> new PreDispatchCheck.Proceed(request.attachments().stream()
                .map(ref -> new Verification.LoadedAttachment(ref, new byte[] {7, 8, 9})).toList()));
        List<AttemptOutcome> outcomes = run(withAttachment("c-3"));

        assertThat(outcomes).singleElement().satisfies(o -> assertThat(o.getStatus())
                .isEqualTo(OutcomeStatus.SUCCEEDED));
        assertThat(webhook.dispatched).singleElement().satisfies(r -> {
            assertThat(r.attachments()).singleElement().satisfies(a -> {
                assertThat(a.content()).containsExactly(7, 8, 9);
                assertThat(a.hasContent()).isTrue();
            });
        });
    }

    @Test
    void shouldLetReservationsWithoutAttachmentsThroughWithoutStorage() {
        assertThat(run(live("c-4", "webhook"))).singleElement()
                .satisfies(o -> assertThat(o.getStatus()).isEqualTo(OutcomeStatus.SUCCEEDED));
    }
}
