package io.actiongate.pipeline;

import static io.actiongate.executor.ItSupport.createTopics;
import static io.actiongate.executor.ItSupport.produce;
import static io.actiongate.executor.ItSupport.readAll;
import static io.actiongate.executor.ItSupport.readToEnd;
import static io.actiongate.executor.ItSupport.readUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.ApprovalMode;
import io.actiongate.avro.AttemptSummary;
import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.avro.OutcomeStatus;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.avro.ResolvedBy;
import io.actiongate.avro.ToolDescriptor;
import io.actiongate.avro.UnknownOutcome;
import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;
import io.actiongate.cli.commands.DecideCommand;
import io.actiongate.cli.commands.ProposalJson;
import io.actiongate.contract.ReasonCode;
import io.actiongate.executor.ExecutorProcessMain;
import io.actiongate.key.ActionKey;
import io.actiongate.keyfiles.KeyFiles;
import io.actiongate.node.ActiongateNode;
import io.actiongate.node.Role;
import io.actiongate.sandbox.SandboxWebhookProvider.Fault;
import io.actiongate.sandbox.SandboxWebhookProvider;
import io.actiongate.serde.AvroSetup;
import io.actiongate.topics.Topics;

/**
 * The real gate, executor and reconciler (started as an {@link ActiongateNode} from a flat configuration) on the
 * embedded broker, dispatching through the real webhook connector to the sandbox provider.
 */
class GatePipelineIT {

    /** Its brokers allow the 1.5 s session of the killed executor's group (KafkaBrokerExtension's defaults). */
    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ORG = "acme";
    private static final String TASK = "T-1";
    private static final String TOOL = "send_email";
    private static final String SCHEMA = "sha256:schema-v1";
    private static final String KEY_ID = "owner-key";
    private static final String OWNER = "owner@acme";
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static SandboxWebhookProvider sandbox;
    private static KeyPair ownerKey;

    @TempDir
    Path stateDir;

    private final List<Process> processes = new CopyOnWriteArrayList<>();
    private String prefix;
    private ActiongateNode node;

    @BeforeAll
    static void startSandbox() throws Exception {
        AvroSetup.install();
        sandbox = SandboxWebhookProvider.start();
        ownerKey = KeyPairGenerator.getInstance(KeyFiles.ALGORITHM).generateKeyPair();
    }

    @AfterAll
    static void stopSandbox() {
        sandbox.close();
    }

    @BeforeEach
    void createTopicsAndPolicy(TestInfo test) {
        prefix = TestNames.topicPrefix(test);
        sandbox.reset();
        createTopics(KAFKA.admin(), prefix, 3);
        publishPolicy(prefix);
    }

    @AfterEach
    void stopNode() {
        processes.forEach(Process::destroyForcibly);
        if (node != null) {
            node.close();
        }
    }

    /** The short timings every test runs with; the policy was published first, so the global table has it. */
    Map<String, String> config(TestInfo test) {
        Map<String, String> c = new HashMap<>();
        c.put("bootstrap.servers", KAFKA.bootstrapServers());
        c.put("topic.prefix", prefix);
        c.put("application.id", TestNames.applicationId(test));
        c.put("executor.group.id", TestNames.applicationId(test) + "-executor");
        c.put("reconciler.group.id", TestNames.applicationId(test) + "-reconciler");
        c.put("state.dir", stateDir.toString());
        c.put("http.port", "0");
        c.put("http.bind.address", "127.0.0.1");
        c.put("node.shutdown.timeout.ms", "5000");
        c.put("gate.trusted.keys", KEY_ID + "=" + Base64.getEncoder().encodeToString(ownerKey.getPublic().getEncoded()));
        c.put("gate.lease.duration", "3s");
        c.put("gate.dispatch.timeout", "2s");
        c.put("gate.punctuate.interval", "200ms");
        c.put("gate.streams.commit.interval.ms", "100");
        c.put("executor.poll.timeout", "100");
        c.put("executor.shutdown.timeout", "2000");
        c.put("reconciler.poll.timeout", "100");
        c.put("reconciler.backoff.initial", "200");
        c.put("reconciler.backoff.max", "1000");
        c.put("reconciler.max.lookups", "3");
        c.put("connectors.webhook.base-url", sandbox.baseUri().toString());
        // the gate auto-approves only a trusted read: the connector's classifier must say READ (and the descriptor
        // read_only_hint=true, below)
        c.put("connectors.webhook.read-operations", TOOL);
        c.put("connectors.webhook.response-timeout-ms", "1500");
        return c;
    }

    ActiongateNode start(Map<String, String> config, String roles) {
        node = ActiongateNode.start(config, Role.parse(roles));
        ActiongateNode started = node;
        await().atMost(Duration.ofSeconds(60)).until(started::ready);
        return started;
    }

    @Test
    void shouldDispatchThreeAttemptsWithOneIdempotencyKeyUnder429AndFailWithRetriesExhausted(TestInfo test) {
        String key = "idem-" + prefix + "-429";
        sandbox.program(Fault.rateLimit(key, 10, "1"));
        start(config(test), "gate,executor,reconciler");

        propose("c-429", key);
        Receipt failed = awaitReceipt("c-429", r -> r.getStatus() == ReceiptStatus.FAILED);

        assertThat(failed.getReasonCode()).isEqualTo(ReasonCode.RETRIES_EXHAUSTED.name());
        assertThat(failed.getAttempts()).extracting(AttemptSummary::getAttempt).containsExactly(1, 2, 3);
        assertThat(failed.getAttempts()).allSatisfy(a -> {
            assertThat(a.getStatus()).isEqualTo(OutcomeStatus.RETRYABLE);
            assertThat(a.getDispatched()).isTrue();
            assertThat(a.getHttpStatus()).isEqualTo(429);
        });
        // every attempt reached the provider once, under the action's one idempotency key, Retry-After apart
        List<Instant> arrivals = sandbox.requestTimes(key);
        assertThat(arrivals).hasSize(3);
        assertThat(sandbox.totalRequests()).isEqualTo(3); // no attempt came under another key
        assertThat(Duration.between(arrivals.get(0), arrivals.get(1))).isGreaterThanOrEqualTo(Duration.ofMillis(950));
        assertThat(Duration.between(arrivals.get(1), arrivals.get(2))).isGreaterThanOrEqualTo(Duration.ofMillis(950));
        assertThat(sandbox.effects(key)).isZero();
        // never a fourth attempt
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).until(() -> sandbox.requests(key) == 3);
        assertThat(receipts("c-429")).isNotEmpty().noneMatch(r -> r.getStatus() == ReceiptStatus.SUCCEEDED
                || r.getAttempts().size() > 3);
    }

    @Test
    void shouldCarryTheProposalsTraceToTheProviderRequestAndEveryReceipt(TestInfo test) throws Exception {
        String key = "idem-" + prefix + "-trace";
        String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
        String traceparent = "00-" + traceId + "-00f067aa0ba902b7-01";
        start(config(test), "gate,executor,reconciler");

        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        try (KafkaProducer<String, ActionProposal> producer = new KafkaProducer<>(props, new StringSerializer(),
                Topics.PROPOSALS.valueSerde().serializer())) {
            ProducerRecord<String, ActionProposal> record = new ProducerRecord<>(Topics.PROPOSALS.name(prefix),
                    TASK + "/c-trace", proposal("c-trace", key));
            record.headers().add("traceparent", traceparent.getBytes(StandardCharsets.US_ASCII));
            producer.send(record).get(60, TimeUnit.SECONDS);
        }
        awaitReceipt("c-trace", r -> r.getStatus() == ReceiptStatus.SUCCEEDED);

        // the provider request: without an OpenTelemetry SDK the carried context itself (same trace and parent)
        assertThat(sandbox.traceparents(key)).containsExactly(traceparent);
        // every receipt of the action, up to SUCCEEDED (written after the executor's outcome came back)
        Map<String, Object> consumerProps = new HashMap<>();
        consumerProps.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        consumerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<String> receiptTraces = new ArrayList<>();
        List<ReceiptStatus> statuses = new ArrayList<>();
        try (KafkaConsumer<String, Receipt> consumer = new KafkaConsumer<>(consumerProps, new StringDeserializer(),
                Topics.RECEIPTS.valueSerde().deserializer())) {
            String topic = Topics.RECEIPTS.name(prefix);
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(info -> new TopicPartition(topic, info.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (!statuses.contains(ReceiptStatus.SUCCEEDED) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, Receipt> r : consumer.poll(Duration.ofMillis(100))) {
                    if (r.value().getToolCallId().equals("c-trace")) {
                        statuses.add(r.value().getStatus());
                        Header h = r.headers().lastHeader("traceparent");
                        receiptTraces.add(h == null ? null : new String(h.value(), StandardCharsets.US_ASCII));
                    }
                }
            }
        }
        assertThat(statuses).contains(ReceiptStatus.DISPATCHING, ReceiptStatus.SUCCEEDED);
        assertThat(receiptTraces).hasSameSizeAs(statuses).allSatisfy(t -> assertThat(t).contains(traceId));
    }

    @Test
    void shouldWaitUntilAnHttpDateRetryAfterBeforeTheSecondAttempt(TestInfo test) {
        String key = "idem-" + prefix + "-date";
        start(config(test), "gate,executor,reconciler");
        // whole seconds, well beyond the 1 s default backoff the gate would use if it ignored the date
        Instant retryAt = Instant.now().plusSeconds(5).truncatedTo(ChronoUnit.SECONDS);
        sandbox.program(Fault.rateLimit(key, 1,
                DateTimeFormatter.RFC_1123_DATE_TIME.format(retryAt.atOffset(ZoneOffset.UTC))));

        propose("c-date", key);
        Receipt succeeded = awaitReceipt("c-date", r -> r.getStatus() == ReceiptStatus.SUCCEEDED);

        assertThat(succeeded.getAttempts()).extracting(AttemptSummary::getStatus)
                .containsExactly(OutcomeStatus.RETRYABLE, OutcomeStatus.SUCCEEDED);
        List<Instant> arrivals = sandbox.requestTimes(key);
        assertThat(arrivals).hasSize(2);
        assertThat(arrivals.get(0)).isBefore(retryAt.minusSeconds(1)); // else the test proves nothing
        assertThat(arrivals.get(1)).isAfterOrEqualTo(retryAt.minusMillis(50)); // clock granularity only
        assertThat(sandbox.effects(key)).isEqualTo(1);
    }

    @Test
    void shouldKeepAnUnresolvableOutcomeUnknownUntilTheOwnerResolvesItAndKeepTheAttemptHistory(TestInfo test) {
        String applied = "idem-" + prefix + "-applied";
        String dropped = "idem-" + prefix + "-dropped";
        // applied, but the answer comes after the 1.5 s response timeout; and no lookup can tell
        sandbox.program(Fault.delayAfterApply(applied, Duration.ofSeconds(3)));
        sandbox.program(Fault.lookupError(applied, 100));
        // the connection drops before anything is applied; no lookup can tell either
        sandbox.program(Fault.dropBeforeApply(dropped));
        sandbox.program(Fault.lookupError(dropped, 100));
        start(config(test), "gate,executor,reconciler");

        propose("c-applied", applied);
        propose("c-dropped", dropped);
        Receipt appliedUnknown = awaitLookedUp("c-applied", applied);
        Receipt droppedUnknown = awaitLookedUp("c-dropped", dropped);
        // reconciler.max.lookups lookups of each and no more, and both stay UNKNOWN
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
                .until(() -> sandbox.lookups(applied) == 3 && sandbox.lookups(dropped) == 3);
        assertStillUnknown("c-applied", applied);
        assertStillUnknown("c-dropped", dropped);

        decide("c-applied", DecisionType.RESOLVE_EFFECT_CONFIRMED, appliedUnknown.getActionDigest());
        decide("c-dropped", DecisionType.RESOLVE_NO_EFFECT, droppedUnknown.getActionDigest());
        Receipt succeeded = awaitReceipt("c-applied", r -> r.getStatus() == ReceiptStatus.SUCCEEDED);
        Receipt notApplied = awaitReceipt("c-dropped", r -> r.getStatus() == ReceiptStatus.NOT_APPLIED);

        assertResolvedByOwnerWithHistory(succeeded, appliedUnknown);
        assertResolvedByOwnerWithHistory(notApplied, droppedUnknown);
        assertThat(sandbox.requests(applied)).isEqualTo(1);
        assertThat(sandbox.effects(applied)).isEqualTo(1);
        assertThat(sandbox.requests(dropped)).isEqualTo(1);
        assertThat(sandbox.effects(dropped)).isZero();
    }

    /** UNKNOWN, then the reconciler's reconciler.max.lookups lookups. */
    private Receipt awaitLookedUp(String call, String key) {
        Receipt unknown = awaitReceipt(call, r -> r.getStatus() == ReceiptStatus.UNKNOWN);
        assertThat(unknown.getResolvedBy()).isNull();
        await().atMost(WAIT).until(() -> sandbox.lookups(key) >= 3);
        return unknown;
    }

    /** Still UNKNOWN after its lookups, with the one request that made it so. */
    private void assertStillUnknown(String call, String key) {
        List<Receipt> settled = receipts(call);
        assertThat(settled).isNotEmpty().noneMatch(r -> r.getStatus() == ReceiptStatus.SUCCEEDED
                || r.getStatus() == ReceiptStatus.NOT_APPLIED || r.getStatus() == ReceiptStatus.FAILED);
        assertThat(settled.get(settled.size() - 1).getStatus()).isEqualTo(ReceiptStatus.UNKNOWN);
        assertThat(sandbox.requests(key)).isEqualTo(1);
    }

    private static void assertResolvedByOwnerWithHistory(Receipt resolved, Receipt unknown) {
        assertThat(resolved.getResolvedBy()).isEqualTo(ResolvedBy.OWNER);
        assertThat(resolved.getAttempts()).singleElement().satisfies(a -> {
            assertThat(a.getAttempt()).isEqualTo(1);
            assertThat(a.getStatus()).isEqualTo(OutcomeStatus.UNKNOWN);
            assertThat(a.getDispatched()).isTrue();
            assertThat(a.getErrorCode()).isNotNull().isEqualTo(unknown.getAttempts().get(0).getErrorCode());
        });
    }

    /** System tier: a kill -9 of an executor JVM; its timing gave it a second lease expiry on a busy machine. */
    @Test
    @Tag("system")
    void shouldRunAReadAgainOnceTheReconcilerProvesAKilledExecutorNeverDispatchedIt(TestInfo test)
            throws Exception {
        String key = "idem-" + prefix + "-kill-before";
        start(config(test), "gate,reconciler");
        List<String> stdout = new CopyOnWriteArrayList<>();
        Process executor = spawnExecutor(test, "block-before-dispatch", stdout);

        propose("c-kill-before", key);
        await().atMost(WAIT).until(() -> stdout.contains(ExecutorProcessMain.ENTERED + key));
        kill(executor); // after the offset commit, before the connector sent a byte

        Receipt unknown = awaitReceipt("c-kill-before", r -> r.getStatus() == ReceiptStatus.UNKNOWN);
        spawnExecutor(test, "normal", new CopyOnWriteArrayList<>());
        assertThat(unknown.getReasonCode()).isEqualTo(ReasonCode.LEASE_EXPIRED.name());
        assertThat(unknownOutcomes("c-kill-before")).singleElement().satisfies(u -> {
            assertThat(u.getAttempt()).isEqualTo(1);
            assertThat(u.getIdempotencyKey()).isEqualTo(key);
        });
        // a trusted read proven NO_EFFECT is not NOT_APPLIED: its next attempt runs, same idempotency key (a lease
        // that expires while the new executor starts makes one more NOT_DISPATCHED attempt, within the budget)
        Receipt succeeded = awaitReceipt("c-kill-before", r -> r.getStatus() == ReceiptStatus.SUCCEEDED);
        assertThat(succeeded.getResolvedBy()).isEqualTo(ResolvedBy.GATE);
        assertThat(succeeded.getAttempts()).first()
                .satisfies(a -> assertThat(a.getStatus()).isEqualTo(OutcomeStatus.UNKNOWN));
        assertThat(succeeded.getAttempts()).last()
                .satisfies(a -> assertThat(a.getStatus()).isEqualTo(OutcomeStatus.SUCCEEDED));
        assertThat(receipts("c-kill-before")).noneMatch(r -> r.getStatus() == ReceiptStatus.NOT_APPLIED);
        assertThat(sandbox.lookups()).isPositive();
        assertThat(sandbox.requests(key)).as("one request, with the action's own key").isEqualTo(1);
        assertThat(sandbox.effects(key)).isEqualTo(1);
    }

    /** System tier: a kill -9 of an executor JVM (workers' ExecutorCrashIT is the fast tier's). */
    @Test
    @Tag("system")
    void shouldConfirmTheEffectOfAnExecutorKilledAfterItSentAndNeverSendAgain(TestInfo test) throws Exception {
        String key = "idem-" + prefix + "-kill-after";
        sandbox.program(Fault.holdBeforeApply(key, Duration.ofSeconds(30)));
        start(config(test), "gate,reconciler");
        Process executor = spawnExecutor(test, "normal", new CopyOnWriteArrayList<>());

        propose("c-kill-after", key);
        await().atMost(WAIT).until(() -> sandbox.requests(key) == 1);
        kill(executor); // the request is on the wire, no outcome will ever be produced
        sandbox.releaseHeld(); // the provider applies it after all
        await().atMost(Duration.ofSeconds(5)).until(() -> sandbox.effects(key) == 1);

        Receipt unknown = awaitReceipt("c-kill-after", r -> r.getStatus() == ReceiptStatus.UNKNOWN);
        assertThat(unknown.getReasonCode()).isEqualTo(ReasonCode.LEASE_EXPIRED.name());
        Receipt succeeded = awaitReceipt("c-kill-after", r -> r.getStatus() == ReceiptStatus.SUCCEEDED);
        assertThat(succeeded.getResolvedBy()).isEqualTo(ResolvedBy.RECONCILER);
        assertThat(succeeded.getProviderReceiptId()).isEqualTo(sandbox.effect(key).id());
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4)).until(() -> sandbox.requests(key) == 1);
        assertThat(sandbox.effects(key)).isEqualTo(1);
    }

    // ---- helpers

    /** An executor in its own JVM (same class path), owning every attempts partition before the test proposes. */
    private Process spawnExecutor(TestInfo test, String mode, List<String> stdout) throws IOException {
        String group = TestNames.applicationId(test) + "-executor-process";
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), ExecutorProcessMain.class.getName(),
                KAFKA.bootstrapServers(), prefix, group, sandbox.baseUri().toString(), mode)
                .redirectErrorStream(true).start();
        processes.add(process);
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    stdout.add(line);
                }
            } catch (IOException e) {
                // the process was killed
            }
        }, "executor-process-stdout");
        reader.setDaemon(true);
        reader.start();
        ExecutorProcessMain.start(process); // it starts its executor when told, once its JVM is up
        await().atMost(Duration.ofSeconds(60)).until(() -> ownsPartitions(group));
        return process;
    }

    private static boolean ownsPartitions(String group) {
        try {
            ConsumerGroupDescription description = KAFKA.admin().describeConsumerGroups(List.of(group))
                    .describedGroups().get(group).get(10, TimeUnit.SECONDS);
            return description.members().stream()
                    .mapToInt(m -> m.assignment().topicPartitions().size()).sum() == 3;
        } catch (ExecutionException | TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void kill(Process process) throws InterruptedException {
        process.destroyForcibly(); // SIGKILL: no shutdown hook, no outcome, no LeaveGroup
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }

    private List<UnknownOutcome> unknownOutcomes(String call) {
        return readAll(KAFKA.bootstrapServers(), Topics.UNKNOWN_OUTCOMES.name(prefix), Topics.UNKNOWN_OUTCOMES,
                Duration.ofSeconds(2)).stream().filter(u -> u.getToolCallId().equals(call)).toList();
    }

    private static void publishPolicy(String prefix) {
        // approval NONE with a trusted read-only hint: admitted without an approval, so the tests are about dispatch
        produce(KAFKA.bootstrapServers(), Topics.POLICY.name(prefix), Topics.POLICY, PipelinePolicy.records(ORG, TASK,
                ToolDescriptor.newBuilder().setProvider("webhook").setToolName(TOOL).setOperation(TOOL)
                        .setSchemaHash(SCHEMA).setReadOnlyHint(true).setDestructiveHint(null).setIdempotentHint(null)
                        .setOpenWorldHint(null).setApproval(ApprovalMode.NONE).setMaxInputBytes(4096).setEnabled(true)
                        .build()));
    }

    private void propose(String call, String idempotencyKey) {
        produce(KAFKA.bootstrapServers(), Topics.PROPOSALS.name(prefix), Topics.PROPOSALS,
                Map.of(ActionKey.format(TASK, call), proposal(call, idempotencyKey)));
    }

    private static ActionProposal proposal(String call, String idempotencyKey) {
        ObjectNode p = JSON.createObjectNode();
        p.put("task_id", TASK);
        p.put("tool_call_id", call);
        p.put("task_version", 1);
        p.put("org_id", ORG);
        p.put("principal_id", "user-1");
        p.put("profile_id", "chat-default");
        p.put("authorization_epoch", 1);
        p.put("provider", "webhook");
        p.put("operation", TOOL);
        p.put("tool_name", TOOL);
        p.put("tool_schema_hash", SCHEMA);
        ObjectNode input = p.putObject("input");
        input.put("to", "ops@example.com");
        input.put("body", "disk is full");
        p.put("summary", "Email ops that the disk is full");
        p.put("idempotency_key", idempotencyKey);
        return ProposalJson.fromJson(p, Instant.now());
    }

    private void decide(String call, DecisionType type, String actionDigest) {
        Decision decision = DecideCommand.signed(new ActionKey(TASK, call), type, actionDigest, OWNER, ORG, "test",
                Duration.ofMinutes(5), KEY_ID, ownerKey.getPrivate(), Instant.now());
        produce(KAFKA.bootstrapServers(), Topics.DECISIONS.name(prefix), Topics.DECISIONS,
                Map.of(ActionKey.format(TASK, call), decision));
    }

    private List<Receipt> receipts(String call) {
        return readToEnd(KAFKA.bootstrapServers(), Topics.RECEIPTS.name(prefix), Topics.RECEIPTS).stream()
                .filter(r -> r.getToolCallId().equals(call)).toList();
    }

    private Receipt awaitReceipt(String call, Predicate<Receipt> wanted) {
        Predicate<Receipt> match = r -> r.getToolCallId().equals(call) && wanted.test(r);
        List<Receipt> read = readUntil(KAFKA.bootstrapServers(), Topics.RECEIPTS.name(prefix), Topics.RECEIPTS,
                values -> values.stream().anyMatch(match), WAIT);
        return read.stream().filter(match).findFirst().orElseThrow(() -> new AssertionError(
                "no such receipt for " + call + "; saw " + read.stream().filter(r -> r.getToolCallId().equals(call))
                        .map(r -> r.getStatus() + "/" + r.getReasonCode()).toList()));
    }
}
