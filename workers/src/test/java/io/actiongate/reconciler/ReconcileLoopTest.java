package io.actiongate.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import io.actiongate.avro.Reconciliation;
import io.actiongate.avro.UnknownOutcome;
import io.actiongate.avro.Verdict;
import io.actiongate.connector.spi.ConnectorRegistry;
import io.actiongate.connector.spi.LookupResult;
import io.actiongate.topics.Topics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

class ReconcileLoopTest {

    private static final String INPUT = "actiongate.unknown-outcomes";
    private static final TopicPartition P0 = new TopicPartition(INPUT, 0);
    private static final Backoff BACKOFF = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(4));

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T02:00:00Z"));
    private final MockConsumer<String, byte[]> consumer = new MockConsumer<>("earliest");
    private final MockProducer<String, Reconciliation> producer =
            new MockProducer<>(true, null, new StringSerializer(), Topics.RECONCILIATIONS.valueSerde().serializer());
    private final ReconcilerMetrics metrics = new ReconcilerMetrics(new PrometheusRegistry());
    private ReconcileLoop loop;

    private void start(int maxLookups, ScriptedLookupConnector... connectors) {
        loop = new ReconcileLoop(consumer, producer, Topics.UNKNOWN_OUTCOMES.valueSerde().deserializer(), INPUT,
                "actiongate.reconciliations", ConnectorRegistry.of(connectors), maxLookups, BACKOFF,
                Duration.ofMillis(1), Duration.ofSeconds(5), clock, metrics);
        loop.subscribe();
        consumer.rebalance(List.of(P0));
        consumer.updateBeginningOffsets(Map.of(P0, 0L));
    }

    static UnknownOutcome unknown(String callId, String provider) {
        return UnknownOutcome.newBuilder()
                .setTaskId("T-1").setToolCallId(callId).setAttempt(1).setIdempotencyKey("idem-" + callId)
                .setOrgId("acme").setProvider(provider).setOperation("send_email").setToolName("send_email")
                .setInputJson(null).setReason("no outcome before lease + dispatch timeout")
                .setSince(Instant.parse("2026-11-30T01:59:00Z")).build();
    }

    private void add(long offset, UnknownOutcome unknown) {
        consumer.addRecord(new ConsumerRecord<>(INPUT, 0, offset, "T-1/" + unknown.getToolCallId(),
                Topics.UNKNOWN_OUTCOMES.valueSerde().serializer().serialize(INPUT, unknown)));
    }

    private List<Reconciliation> reconciliations() {
        return producer.history().stream().map(ProducerRecord::value).toList();
    }

    private OffsetAndMetadata committed() {
        return consumer.committed(java.util.Set.of(P0)).get(P0);
    }

    @Test
    void shouldStopOnAnUnknownOutcomeOfANewerVersionBeforeLookingUpOrCommittingAnything() {
        ScriptedLookupConnector webhook = new ScriptedLookupConnector("webhook", LookupResult.noEffect("404"));
        start(5, webhook);
        byte[] newer = Topics.UNKNOWN_OUTCOMES.valueSerde().serializer().serialize(INPUT, unknown("c-2", "webhook"));
        for (int i = 2; i < 10; i++) {
            newer[i] ^= 0x5A; // another fingerprint: a schema version a newer gate writes
        }
        add(0, unknown("c-1", "webhook"));
        consumer.addRecord(new ConsumerRecord<>(INPUT, 0, 1, "T-1/c-2", newer));

        org.assertj.core.api.Assertions.assertThatThrownBy(loop::pollOnce)
                .isInstanceOf(io.actiongate.serde.UnknownFormatException.class)
                .hasMessageContaining("stops: actiongate.unknown-outcomes-0@1 holds UnknownOutcome with fingerprint");
        assertThat(webhook.lookups).isEmpty();
        assertThat(reconciliations()).isEmpty();
        assertThat(committed()).isNull();
    }

    @Test
    void shouldReportNoEffectAfterTwoInconclusiveLookupsWaitingTheBackoffBetween() {
        ScriptedLookupConnector webhook = new ScriptedLookupConnector("webhook",
                LookupResult.stillUnknown("503"), LookupResult.stillUnknown("503"),
                LookupResult.noEffect("404 for the key"));
        start(5, webhook);
        add(0, unknown("c-1", "webhook"));

        loop.pollOnce();
        assertThat(webhook.lookups).hasSize(1);
        assertThat(consumer.paused()).containsExactly(P0);
        loop.pollOnce();
        assertThat(webhook.lookups).as("not due before the first backoff").hasSize(1);

        clock.advance(Duration.ofSeconds(1));
        loop.pollOnce();
        assertThat(webhook.lookups).hasSize(2);
        clock.advance(Duration.ofMillis(1999));
        loop.pollOnce();
        assertThat(webhook.lookups).as("second backoff doubles to 2 s").hasSize(2);
        assertThat(reconciliations()).isEmpty();
        assertThat(committed()).as("nothing committed while open").isNull();

        clock.advance(Duration.ofMillis(1));
        loop.pollOnce();

        assertThat(reconciliations()).singleElement().satisfies(r -> {
            assertThat(r.getVerdict()).isEqualTo(Verdict.NO_EFFECT);
            assertThat(r.getLookups()).isEqualTo(3);
            assertThat(r.getTaskId()).isEqualTo("T-1");
            assertThat(r.getToolCallId()).isEqualTo("c-1");
            assertThat(r.getCheckedAt()).isEqualTo(clock.instant());
        });
        assertThat(committed().offset()).isEqualTo(1);
        assertThat(consumer.paused()).isEmpty();
        assertThat(webhook.dispatchCalled).isFalse();
    }

    @Test
    void shouldGiveUpAsStillUnknownWhenTheLookupBoundIsReached() {
        ScriptedLookupConnector webhook = new ScriptedLookupConnector("webhook",
                LookupResult.stillUnknown("provider answered 500"));
        start(3, webhook);
        add(0, unknown("c-1", "webhook"));

        for (int i = 0; i < 10; i++) {
            loop.pollOnce();
            clock.advance(Duration.ofSeconds(4));
        }

        assertThat(webhook.lookups).hasSize(3);
        assertThat(reconciliations()).singleElement().satisfies(r -> {
            assertThat(r.getVerdict()).isEqualTo(Verdict.STILL_UNKNOWN);
            assertThat(r.getLookups()).isEqualTo(3);
            assertThat(r.getEvidence()).isEqualTo("provider answered 500");
        });
        assertThat(committed().offset()).isEqualTo(1);
    }

    @Test
    void shouldConfirmAnEffectWithItsReceipt() {
        ScriptedLookupConnector webhook = new ScriptedLookupConnector("webhook",
                LookupResult.confirmed("applied", "sbx-42"));
        start(5, webhook);
        add(0, unknown("c-1", "webhook"));

        loop.pollOnce();

        assertThat(reconciliations()).singleElement().satisfies(r -> {
            assertThat(r.getVerdict()).isEqualTo(Verdict.EFFECT_CONFIRMED);
            assertThat(r.getProviderReceiptId()).isEqualTo("sbx-42");
            assertThat(r.getLookups()).isEqualTo(1);
        });
        assertThat(producer.history().get(0).key()).isEqualTo("T-1/c-1");
    }

    @Test
    void shouldAnswerStillUnknownForAProviderWithoutConnector() {
        start(5, new ScriptedLookupConnector("webhook", LookupResult.noEffect("404")));
        add(0, unknown("c-1", "fax"));

        loop.pollOnce();

        assertThat(reconciliations()).singleElement().satisfies(r -> {
            assertThat(r.getVerdict()).isEqualTo(Verdict.STILL_UNKNOWN);
            assertThat(r.getEvidence()).isEqualTo("no connector for provider fax");
            assertThat(r.getLookups()).isZero();
        });
    }

    @Test
    void shouldKeepThePartitionPausedAndUncommittedUntilEveryOutcomeOfTheBatchIsReconciled() {
        ScriptedLookupConnector webhook = new ScriptedLookupConnector("webhook", LookupResult.noEffect("404"));
        ScriptedLookupConnector slow = new ScriptedLookupConnector("slow", LookupResult.stillUnknown("?"),
                LookupResult.confirmed("applied", "r"));
        start(5, webhook, slow);
        add(0, unknown("c-1", "webhook"));
        add(1, unknown("c-2", "slow"));

        loop.pollOnce();
        assertThat(reconciliations()).hasSize(1);
        assertThat(committed()).isNull();
        assertThat(consumer.paused()).containsExactly(P0);

        clock.advance(Duration.ofSeconds(1));
        loop.pollOnce();

        assertThat(reconciliations()).hasSize(2);
        assertThat(committed().offset()).isEqualTo(2);
        assertThat(consumer.paused()).isEmpty();
    }

    @Test
    void shouldCommitOnlyTheReconciledPrefixWhenThePartitionIsRevoked() {
        ScriptedLookupConnector webhook = new ScriptedLookupConnector("webhook", LookupResult.noEffect("404"));
        ScriptedLookupConnector slow = new ScriptedLookupConnector("slow", LookupResult.stillUnknown("?"));
        start(5, webhook, slow);
        add(0, unknown("c-1", "webhook"));
        add(1, unknown("c-2", "slow"));
        add(2, unknown("c-3", "webhook"));

        loop.pollOnce();
        loop.onPartitionsRevoked(List.of(P0));

        assertThat(committed().offset()).as("c-2 is still open: it must be read again").isEqualTo(1);
        assertThat(loop.openJobs()).isZero();
    }

    @Test
    void shouldTreatALookupThatThrowsAsInconclusive() {
        ScriptedLookupConnector webhook = new ScriptedLookupConnector("webhook") {
            @Override
            public synchronized LookupResult lookup(io.actiongate.connector.spi.LookupRequest request) {
                throw new IllegalStateException("boom");
            }
        };
        start(2, webhook);
        add(0, unknown("c-1", "webhook"));

        loop.pollOnce();
        clock.advance(Duration.ofSeconds(1));
        loop.pollOnce();

        assertThat(reconciliations()).singleElement().satisfies(r -> {
            assertThat(r.getVerdict()).isEqualTo(Verdict.STILL_UNKNOWN);
            assertThat(r.getEvidence()).isEqualTo("lookup failed: IllegalStateException");
            assertThat(r.getLookups()).isEqualTo(2);
        });
    }

    /** A clock the test moves by hand. */
    static final class MutableClock extends Clock {
        private volatile Instant now;

        MutableClock(Instant start) {
            this.now = start;
        }

        void advance(Duration duration) {
            now = now.plus(duration);
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    @Test
    void shouldContinueTheUnknownOutcomesTraceInItsReconciliation() {
        String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        ScriptedLookupConnector webhook = new ScriptedLookupConnector("webhook",
                LookupResult.noEffect("404 for the key"));
        start(5, webhook);
        UnknownOutcome traced = unknown("c-1", "webhook");
        org.apache.kafka.common.header.internals.RecordHeaders headers =
                new org.apache.kafka.common.header.internals.RecordHeaders();
        headers.add("traceparent", traceparent.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        consumer.addRecord(new ConsumerRecord<>(INPUT, 0, 0, 0L,
                org.apache.kafka.common.record.TimestampType.CREATE_TIME, -1, -1, "T-1/c-1",
                Topics.UNKNOWN_OUTCOMES.valueSerde().serializer().serialize(INPUT, traced), headers,
                java.util.Optional.empty()));

        loop.pollOnce();

        ProducerRecord<String, Reconciliation> out = producer.history().get(0);
        assertThat(out.value().getVerdict()).isEqualTo(Verdict.NO_EFFECT);
        assertThat(new String(out.headers().lastHeader("traceparent").value(),
                java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo(traceparent);
    }
}
