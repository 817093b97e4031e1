package io.actiongate.notifier;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.actiongate.kafka.KafkaClients;
import io.actiongate.kafka.TopicFollower;
import io.actiongate.serde.AvroSerde;
import io.actiongate.serde.UnknownFormatException;

/**
 * {@link NoticeLedger} on the notifier's own topic, {@code {prefix}notifier-state}: one partition, so every instance
 * applies every claim in the same order, and the first claim of an id in that order wins. A claimer writes its claim
 * (idempotent producer, {@code acks=all}), waits until its own reader has applied it, and sends only if the winner is
 * its own nonce. Claims and results live under separate keys ({@code claim|ID}, {@code result|ID}), so compaction,
 * which keeps the latest record of a key, can drop a losing claim or the winner's but never a result. The topic is
 * compacted and deleted after {@code notifier.state.retention} (longer than any action waits); {@code
 * min.compaction.lag.ms} of one hour keeps the whole order of every recent claim.
 *
 * <p>Values are small JSON objects of the notifier alone (not part of the contract): ids, a random nonce, the
 * instance name, times and counts. Never a recipient, a URL or anything of the action but its key.
 */
final class KafkaLedger implements NoticeLedger {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaLedger.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Duration WRITE_TIMEOUT = Duration.ofSeconds(15);
    private static final String CLAIM = "claim|";
    private static final String RESULT = "result|";

    private final String topic;
    private final TopicPartition partition;
    private final Duration retention;
    private final KafkaProducer<String, byte[]> producer;
    private final TopicFollower reader;
    private final Map<String, Claim> claims = new ConcurrentHashMap<>();
    private final Map<String, Result> results = new ConcurrentHashMap<>();
    private volatile long nextPrune = System.nanoTime();

    KafkaLedger(KafkaClients clients, String topic, Duration retention) {
        this.topic = topic;
        this.partition = new TopicPartition(topic, 0);
        this.retention = retention;
        ensureTopic(clients);
        this.producer = clients.producer("actiongate-notifier-state")
                .defaultTo(org.apache.kafka.clients.producer.ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000)
                .defaultTo(org.apache.kafka.clients.producer.ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000)
                .create(new StringSerializer(), new ByteArraySerializer());
        // its one partition, assigned as it is: a topic created a moment ago may not be in the metadata yet
        // a fetch is answered as soon as a claim arrives, so Kafka's idle fetch wait costs a claimer no time
        this.reader = TopicFollower.ofPartitions(clients.consumer("actiongate-notifier-state-reader").follower()
                .create(new StringDeserializer(), new ByteArrayDeserializer()), List.of(partition), this::apply,
                () -> LOG.info("notifier state caught up: {} claims, {} results", claims.size(), results.size()),
                Duration.ofMillis(100), "notifier-state").start();
    }

    private void ensureTopic(KafkaClients clients) {
        NewTopic t = new NewTopic(topic, Optional.of(1), Optional.empty()).configs(Map.of(
                TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT + ","
                        + TopicConfig.CLEANUP_POLICY_DELETE,
                TopicConfig.RETENTION_MS_CONFIG, Long.toString(retention.toMillis()),
                TopicConfig.MIN_COMPACTION_LAG_MS_CONFIG, Long.toString(Duration.ofHours(1).toMillis())));
        if (clients.admin("actiongate-notifier-state-admin").createTopicIfAbsent(t, "the notifier's state topic")) {
            LOG.info("created the notifier's state topic {}", topic);
        }
    }

    /** What the topic forgets after its retention, this instance forgets too (at most every ten minutes). */
    private void prune(Instant now) {
        if (System.nanoTime() - nextPrune < 0) {
            return;
        }
        nextPrune = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        Instant before = now.minus(retention);
        claims.values().removeIf(c -> c.at().isBefore(before));
        results.values().removeIf(r -> r.at().isBefore(before));
    }

    private void apply(ConsumerRecord<String, byte[]> r) {
        String key = r.key();
        if (key == null || r.value() == null) {
            return;
        }
        String where = AvroSerde.where(topic, r.partition(), r.offset());
        if (!key.startsWith(CLAIM) && !key.startsWith(RESULT)) {
            throw newer(where, "a notifier state record of another kind", r.headers());
        }
        try {
            if (key.startsWith(CLAIM)) {
                Claim claim = claimOf(key.substring(CLAIM.length()), r.value());
                claims.putIfAbsent(claim.id(), claim);
            } else {
                String id = key.substring(RESULT.length());
                Result result = resultOf(id, r.value());
                results.put(id, result);
                // after compaction a result may be all that is left of a claim: the notice was claimed
                claims.putIfAbsent(id, new Claim(id, result.nonce(), "", result.at()));
            }
        } catch (java.io.IOException | RuntimeException e) {
            throw newer(where, "a notifier state record this release cannot read", r.headers());
        }
    }

    /**
     * Only notifiers write this topic, so a record this release cannot read was written by a newer one: the ledger
     * stops (and with it the notifier) rather than skip a claim and send its notice a second time. The record's
     * {@code actiongate.format} header, when a newer release stamps one, names the version and the writer.
     */
    static UnknownFormatException newer(String where, String what, Headers headers) {
        return UnknownFormatException.stated(where, what, headers,
                "claims and results: keys claim|ID and result|ID, JSON values");
    }

    /**
     * The claim of notice {@code id} from its record's value: every release since the notifier's first writes the
     * same JSON ({@code nonce}, {@code owner}, {@code at} in epoch ms), recorded in formats/README.md.
     */
    static Claim claimOf(String id, byte[] value) throws java.io.IOException {
        JsonNode v = read(value, "nonce", "owner");
        return new Claim(id, v.path("nonce").asText(), v.path("owner").asText(),
                Instant.ofEpochMilli(v.path("at").asLong()));
    }

    /** The result of notice {@code id} ({@code nonce}, {@code at}, {@code delivered}, {@code messages}). */
    static Result resultOf(String id, byte[] value) throws java.io.IOException {
        JsonNode v = read(value, "nonce");
        if (!v.path("delivered").isInt() || !v.path("messages").isInt()) {
            throw new java.io.IOException("a result without its counts");
        }
        return new Result(id, v.path("nonce").asText(), Instant.ofEpochMilli(v.path("at").asLong()),
                v.path("delivered").asInt(), v.path("messages").asInt());
    }

    /** A JSON object with the text members {@code texts} and a number {@code at}; else not a record of this release. */
    private static JsonNode read(byte[] value, String... texts) throws java.io.IOException {
        JsonNode v = JSON.readTree(value);
        if (v == null || !v.isObject() || !v.path("at").canConvertToLong() || !v.path("at").isIntegralNumber()) {
            throw new java.io.IOException("not a notifier state value");
        }
        for (String t : texts) {
            if (!v.path(t).isTextual()) {
                throw new java.io.IOException("no " + t);
            }
        }
        return v;
    }

    /** A record's key: {@code claim|ID} or {@code result|ID}. */
    static String claimKey(String id) {
        return CLAIM + id;
    }

    static String resultKey(String id) {
        return RESULT + id;
    }

    @Override
    public boolean caughtUp() {
        return reader.caughtUp();
    }

    boolean awaitCaughtUp(Duration timeout) throws InterruptedException {
        return reader.awaitCaughtUp(timeout);
    }

    @Override
    public boolean claimed(String id) {
        return claims.containsKey(id);
    }

    @Override
    public Claim claim(String id) {
        return claims.get(id);
    }

    @Override
    public boolean tryClaim(String id, String owner, Instant now) {
        if (claims.containsKey(id)) {
            return false;
        }
        String nonce = HexFormat.of().formatHex(randomBytes());
        long offset = send(claimKey(id), Map.of("nonce", nonce, "owner", owner, "at", now.toEpochMilli()));
        awaitApplied(offset);
        Claim winner = claims.get(id);
        return winner != null && winner.nonce().equals(nonce);
    }

    @Override
    public void result(Result result) {
        send(resultKey(result.id()), Map.of("nonce", result.nonce(), "at", result.at().toEpochMilli(),
                "delivered", result.delivered(), "messages", result.messages()));
    }

    @Override
    public List<Claim> unconfirmed(Instant now, Duration after) {
        prune(now);
        Instant before = now.minus(after);
        List<Claim> out = new ArrayList<>();
        for (Claim c : claims.values()) {
            if (!results.containsKey(c.id()) && c.at().isBefore(before)) {
                out.add(c);
            }
        }
        return out;
    }

    @Override
    public Throwable failure() {
        return reader.failure();
    }

    boolean isRunning() {
        return reader.isRunning();
    }

    private static byte[] randomBytes() {
        byte[] b = new byte[16];
        RANDOM.nextBytes(b);
        return b;
    }

    private long send(String key, Map<String, Object> value) {
        try {
            return producer.send(new ProducerRecord<>(topic, 0, key, JSON.writeValueAsBytes(value)))
                    .get(WRITE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).offset();
        } catch (ExecutionException | TimeoutException | com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("the notifier's state topic did not confirm a write: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private void awaitApplied(long offset) {
        reader.requireApplied(partition, offset, WRITE_TIMEOUT,
                why -> new IllegalStateException("notifier state: " + why));
    }

    @Override
    public void close() {
        reader.close();
        producer.close(Duration.ofSeconds(5));
    }
}
