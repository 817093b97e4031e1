package io.actiongate.client;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.avro.ActionProposal;
import io.actiongate.digest.Digests;
import io.actiongate.digest.FrozenAction;
import io.actiongate.key.ActionKey;
import io.actiongate.kafka.KafkaClients;
import io.actiongate.kafka.KafkaFailures;
import io.actiongate.topics.Topics;

/**
 * A tool host's way into actiongate without writing Avro: {@link #propose} fills and checks an
 * {@code ActionProposal} (input JSON compacted, input digest computed), publishes it on {@code proposals} with an
 * idempotent producer ({@code acks=all}) and returns a {@link ProposalHandle} whose receipt completes from the
 * client's one shared receipts consumer ({@code read_committed}). Redelivering the same call is harmless by
 * construction: the same request gives the same key and digest, which the gate treats as a no-op.
 *
 * <pre>{@code
 * try (ActionGateClient client = ActionGateClient.builder()
 *         .bootstrapServers("localhost:9092").build()) {
 *     ProposalHandle handle = client.propose(ProposalRequest.builder()
 *             .action("T-1", "call-7").taskVersion(1).authorizationEpoch(1)
 *             .identity("acme", "user-42").profile("chat-default")   // from your authentication
 *             .tool("webhook", "send_email", "send_email", "sha256:schema-v1")
 *             .input("{\"to\":\"ops@example.com\",\"body\":\"disk is full\"}")
 *             .summary("Email ops that the disk is full").build(),
 *         Until.WAITING_APPROVAL, Duration.ofSeconds(30));
 *     ActionReceipt receipt = handle.await();   // WAITING_APPROVAL, or terminal when no approval was needed
 * }
 * }</pre>
 *
 * Thread-safe; one client per process is enough. {@link #close()} stops the producer and the receipts consumer and
 * fails handles still waiting.
 */
public final class ActionGateClient implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ActionGateClient.class);

    private final KafkaProducer<String, ActionProposal> producer;
    private final ReceiptWatcher watcher;
    private final String proposalsTopic;
    private final Duration sendTimeout;
    private final Clock clock;
    /** Times out waiting handles; a handle that completes first cancels its timeout, so none piles up. */
    private final ScheduledThreadPoolExecutor timeouts;

    private ActionGateClient(Builder b) {
        KafkaClients clients = KafkaClients.of(b.bootstrapServers, b.kafka);
        this.proposalsTopic = Topics.PROPOSALS.name(b.topicPrefix);
        this.sendTimeout = b.sendTimeout;
        this.clock = b.clock;
        this.producer = producer(clients).create(Topics.PROPOSALS.keySerde().serializer(),
                Topics.PROPOSALS.valueSerde().serializer());
        this.timeouts = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "actiongate-client-timeouts");
            thread.setDaemon(true);
            return thread;
        });
        this.timeouts.setRemoveOnCancelPolicy(true);
        try {
            this.watcher = new ReceiptWatcher(clients.consumer("actiongate-client-receipts")
                    .create(new StringDeserializer(), new ByteArrayDeserializer()), b.topicPrefix, b.sendTimeout);
        } catch (RuntimeException e) {
            producer.close(Duration.ZERO);
            timeouts.shutdownNow();
            throw e;
        }
    }

    /**
     * The proposal producer. {@code linger.ms} is 0 unless given: {@link #propose} waits for each proposal's
     * acknowledgement, so Kafka's default linger (5 ms) would only add to every proposal's latency; proposals sent
     * while a request is in flight still share the next one. A setting weaker than idempotence with
     * {@code acks=all} is refused ({@link org.apache.kafka.common.config.ConfigException} naming the key).
     */
    static KafkaClients.ProducerSpec producer(KafkaClients clients) {
        return clients.producer("actiongate-client-producer");
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Validates, publishes and returns a handle waiting {@code until} for at most {@code timeout}. Returns once Kafka
     * acknowledged the proposal.
     *
     * @throws InvalidProposalException when a field is missing or malformed; nothing is published then
     * @throws KafkaException           when Kafka did not take the proposal within the send timeout
     */
    public ProposalHandle propose(ProposalRequest request, Until until, Duration timeout) throws InterruptedException {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(until, "until");
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive");
        }
        ProposalMapper.Mapped mapped = ProposalMapper.map(request, clock.instant());
        ActionProposal proposal = mapped.proposal();
        String key = request.actionKey();
        String tool = proposal.getProvider() + ":" + proposal.getToolName() + ":" + proposal.getOperation();
        String actionDigest = Digests.actionDigestOfCanonicalInput(FrozenAction.of(proposal), mapped.canonicalInput());
        ReceiptWatcher.Waiter waiter = watcher.register(key, actionDigest, proposal.getInputDigest(),
                proposal.getOrgId(), tool, until);
        ScheduledFuture<?> expiry = timeouts.schedule(() -> waiter.result.completeExceptionally(
                new ReceiptTimeoutException(key, until, timeout, watcher.latest(key))), timeout.toMillis(),
                TimeUnit.MILLISECONDS);
        waiter.result.whenComplete((r, e) -> expiry.cancel(false));
        try {
            producer.send(new ProducerRecord<>(proposalsTopic, key, proposal))
                    .get(sendTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            waiter.result.cancel(false);
            throw new KafkaException("proposal " + key + " was not published: "
                    + KafkaFailures.describe(e.getCause(), KafkaFailures.Access.WRITE), e.getCause());
        } catch (TimeoutException e) {
            waiter.result.cancel(false);
            throw new KafkaException("proposal " + key + " was not acknowledged within " + sendTimeout, e);
        } catch (InterruptedException e) {
            waiter.result.cancel(false);
            throw e;
        }
        LOG.debug("proposed {} ({})", key, proposal.getInputDigest());
        return new ProposalHandle(key, proposal.getInputDigest(), actionDigest, until, timeout, waiter.result,
                watcher);
    }

    /**
     * Calls {@code listener} with every receipt of the action {@code taskId/toolCallId} that this client reads from
     * now on ({@code read_committed}: only receipts of committed gate transactions), until the returned handle is
     * closed. The listener runs on the client's receipts thread: it must return quickly (hand work elsewhere). It
     * sees every receipt published after this call (and may see some published shortly before, read late); to learn
     * an action's current state, ask for it after registering.
     */
    public AutoCloseable watch(String taskId, String toolCallId, java.util.function.Consumer<ActionReceipt> listener) {
        Objects.requireNonNull(listener, "listener");
        return watcher.listen(ActionKey.format(taskId, toolCallId), listener);
    }

    /** Whether the receipts consumer is paused because no handle or watch waits (tests). */
    boolean receiptsPaused() {
        return watcher.paused();
    }

    /** Whether the shared receipts consumer still runs. */
    public boolean isRunning() {
        return watcher.isRunning();
    }

    @Override
    public void close() {
        try {
            watcher.close();
        } finally {
            timeouts.shutdownNow();
            producer.close(Duration.ofSeconds(10));
        }
    }

    /** Where the client finds Kafka and the topics. */
    public static final class Builder {
        private String bootstrapServers;
        private String topicPrefix = Topics.DEFAULT_PREFIX;
        private final Map<String, Object> kafka = new HashMap<>();
        private Duration sendTimeout = Duration.ofSeconds(30);
        private Clock clock = Clock.systemUTC();

        private Builder() {
        }

        public Builder bootstrapServers(String bootstrapServers) {
            this.bootstrapServers = bootstrapServers;
            return this;
        }

        /** The topics' prefix; {@code actiongate.} by default. */
        public Builder topicPrefix(String topicPrefix) {
            this.topicPrefix = Objects.requireNonNull(topicPrefix);
            return this;
        }

        /**
         * Any other Kafka client setting for both the producer and the receipts consumer (security, SASL, TLS).
         * Idempotence, {@code acks} and the isolation level are fixed by the client.
         */
        public Builder kafkaProperty(String name, Object value) {
            kafka.put(name, value);
            return this;
        }

        /**
         * Kafka client settings for both the producer and the receipts consumer, as one map (e.g. a loaded
         * {@code client.properties}: {@code security.protocol}, {@code sasl.*}, {@code ssl.*}). A
         * {@code bootstrap.servers} among them is used unless {@link #bootstrapServers} is also called.
         */
        public Builder kafkaProperties(Map<String, ?> properties) {
            properties.forEach((name, value) -> {
                if (CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG.equals(name)) {
                    if (bootstrapServers == null) {
                        bootstrapServers = String.valueOf(value);
                    }
                } else {
                    kafka.put(name, value);
                }
            });
            return this;
        }

        /** How long {@link #propose} waits for Kafka to acknowledge, and for the topics' metadata at start. */
        public Builder sendTimeout(Duration sendTimeout) {
            this.sendTimeout = Objects.requireNonNull(sendTimeout);
            return this;
        }

        /** The clock that stamps {@code proposed_at}; tests set it. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock);
            return this;
        }

        /** Connects; the {@code receipts} and {@code conflicts} topics must exist. */
        public ActionGateClient build() {
            if (bootstrapServers == null || bootstrapServers.isBlank()) {
                throw new IllegalArgumentException("bootstrapServers is required");
            }
            return new ActionGateClient(this);
        }
    }
}
