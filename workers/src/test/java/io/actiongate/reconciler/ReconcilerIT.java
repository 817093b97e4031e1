package io.actiongate.reconciler;

import static io.actiongate.executor.ItSupport.createTopics;
import static io.actiongate.executor.ItSupport.produce;
import static io.actiongate.executor.ItSupport.readUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.actiongate.avro.Reconciliation;
import io.actiongate.avro.UnknownOutcome;
import io.actiongate.avro.Verdict;
import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.ConnectorRegistry;
import io.actiongate.connector.spi.DispatchRequest;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.LookupRequest;
import io.actiongate.connector.spi.LookupResult;
import io.actiongate.connector.spi.OperationClassifier;
import io.actiongate.executor.ItSupport;
import io.actiongate.key.ActionKey;
import io.actiongate.sandbox.SandboxWebhookProvider;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;
import io.actiongate.topics.Topics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

class ReconcilerIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    private static SandboxWebhookProvider sandbox;

    @BeforeAll
    static void startSandbox() {
        sandbox = SandboxWebhookProvider.start();
    }

    @AfterAll
    static void stopSandbox() {
        sandbox.close();
    }

    private static Map<String, Object> config(String prefix, String group) {
        Map<String, Object> props = new HashMap<>();
        props.put(ReconcilerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        props.put(ReconcilerConfig.TOPIC_PREFIX_CONFIG, prefix);
        props.put(ReconcilerConfig.GROUP_ID_CONFIG, group);
        props.put(ReconcilerConfig.POLL_TIMEOUT_CONFIG, "100");
        props.put(ReconcilerConfig.BACKOFF_INITIAL_CONFIG, "100");
        props.put(ReconcilerConfig.BACKOFF_MAX_CONFIG, "200");
        return props;
    }

    private static UnknownOutcome unknown(String callId) {
        return ReconcileLoopTest.unknown(callId, "webhook");
    }

    private static void publish(String prefix, List<UnknownOutcome> unknowns) {
        Map<String, UnknownOutcome> records = new LinkedHashMap<>();
        unknowns.forEach(u -> records.put(ActionKey.format(u.getTaskId(), u.getToolCallId()), u));
        produce(KAFKA.bootstrapServers(), Topics.UNKNOWN_OUTCOMES.name(prefix), Topics.UNKNOWN_OUTCOMES, records);
    }

    private static Map<String, Set<Verdict>> verdictsByCall(List<Reconciliation> reconciliations) {
        return reconciliations.stream().collect(Collectors.groupingBy(Reconciliation::getToolCallId,
                Collectors.mapping(Reconciliation::getVerdict, Collectors.toSet())));
    }

    @Test
    void shouldConfirmAnEffectThatHappenedAndReportNoEffectForOneThatDidNot(TestInfo test) {
        String prefix = TestNames.topicPrefix(test);
        createTopics(KAFKA.admin(), prefix, 2);
        UnknownOutcome applied = unknown("rec-applied");
        UnknownOutcome notApplied = unknown("rec-not-applied");
        SandboxWebhookProvider.Effect effect = sandbox.applyDirectly("send_email", applied.getIdempotencyKey());
        long postsBefore = sandbox.totalRequests();

        List<Reconciliation> reconciliations;
        try (Reconciler reconciler = Reconciler.start(new ReconcilerConfig(config(prefix,
                TestNames.applicationId(test))), ItSupport.registry(sandbox.baseUri(), Duration.ofSeconds(5)),
                new PrometheusRegistry())) {
            publish(prefix, List.of(applied, notApplied));
            reconciliations = readUntil(KAFKA.bootstrapServers(), Topics.RECONCILIATIONS.name(prefix),
                    Topics.RECONCILIATIONS, values -> values.size() >= 2, Duration.ofSeconds(30));
            assertThat(reconciler.metrics().lookups()).isEqualTo(2);
        }

        assertThat(reconciliations).hasSize(2);
        Reconciliation confirmed = reconciliations.stream()
                .filter(r -> r.getToolCallId().equals("rec-applied")).findFirst().orElseThrow();
        assertThat(confirmed.getVerdict()).isEqualTo(Verdict.EFFECT_CONFIRMED);
        assertThat(confirmed.getProviderReceiptId()).isEqualTo(effect.id());
        assertThat(confirmed.getLookups()).isEqualTo(1);
        Reconciliation none = reconciliations.stream()
                .filter(r -> r.getToolCallId().equals("rec-not-applied")).findFirst().orElseThrow();
        assertThat(none.getVerdict()).isEqualTo(Verdict.NO_EFFECT);
        assertThat(sandbox.totalRequests()).as("the reconciler never dispatches").isEqualTo(postsBefore);
    }

    @Test
    void shouldResumeOpenReconciliationsAfterARestartWithConsistentVerdicts(TestInfo test) {
        String prefix = TestNames.topicPrefix(test);
        createTopics(KAFKA.admin(), prefix, 1);
        String group = TestNames.applicationId(test);
        List<UnknownOutcome> unknowns = List.of(unknown("restart-a1"), unknown("restart-n1"),
                unknown("restart-a2"), unknown("restart-n2"));
        sandbox.applyDirectly("send_email", "idem-restart-a1");
        sandbox.applyDirectly("send_email", "idem-restart-a2");
        AtomicBoolean providerAnswersLateOnes = new AtomicBoolean(false);
        Connector webhook = ItSupport.webhook(sandbox.baseUri(), Duration.ofSeconds(5));
        Connector flaky = new FlakyLookups(webhook, Set.of("idem-restart-a2", "idem-restart-n2"),
                providerAnswersLateOnes);
        Map<String, Object> props = config(prefix, group);
        props.put(ReconcilerConfig.MAX_LOOKUPS_CONFIG, "100");

        try (Reconciler first = Reconciler.start(new ReconcilerConfig(props), ConnectorRegistry.of(flaky),
                new PrometheusRegistry())) {
            publish(prefix, unknowns);
            readUntil(KAFKA.bootstrapServers(), Topics.RECONCILIATIONS.name(prefix), Topics.RECONCILIATIONS,
                    values -> values.size() >= 2, Duration.ofSeconds(30));
            await().atMost(Duration.ofSeconds(10)).until(() -> first.metrics().lookups() >= 6);
        } // stopped with two reconciliations open

        providerAnswersLateOnes.set(true);
        List<Reconciliation> reconciliations;
        try (Reconciler second = Reconciler.start(new ReconcilerConfig(props), ConnectorRegistry.of(flaky),
                new PrometheusRegistry())) {
            reconciliations = readUntil(KAFKA.bootstrapServers(), Topics.RECONCILIATIONS.name(prefix),
                    Topics.RECONCILIATIONS,
                    values -> verdictsByCall(values).keySet().size() >= 4, Duration.ofSeconds(30));
            assertThat(second.failure()).isNull();
        }

        Map<String, Set<Verdict>> verdicts = verdictsByCall(reconciliations);
        assertThat(verdicts).containsOnly(
                Map.entry("restart-a1", Set.of(Verdict.EFFECT_CONFIRMED)),
                Map.entry("restart-n1", Set.of(Verdict.NO_EFFECT)),
                Map.entry("restart-a2", Set.of(Verdict.EFFECT_CONFIRMED)),
                Map.entry("restart-n2", Set.of(Verdict.NO_EFFECT)));
    }

    /** Answers STILL_UNKNOWN for some keys until the provider "comes back". */
    private record FlakyLookups(Connector delegate, Set<String> flakyKeys, AtomicBoolean back)
            implements Connector {
        @Override
        public String provider() {
            return delegate.provider();
        }

        @Override
        public OperationClassifier classifier() {
            return delegate.classifier();
        }

        @Override
        public DispatchResult dispatch(DispatchRequest request) {
            throw new AssertionError("the reconciler must never dispatch");
        }

        @Override
        public LookupResult lookup(LookupRequest request) {
            if (!back.get() && flakyKeys.contains(request.idempotencyKey())) {
                return LookupResult.stillUnknown("provider unavailable");
            }
            return delegate.lookup(request);
        }
    }
}
