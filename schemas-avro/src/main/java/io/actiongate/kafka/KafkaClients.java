package io.actiongate.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The one place actiongate's producers, consumers and admin clients are configured and created, for every role,
 * command and tool. Each client's configuration is built in three layers:
 * <ol>
 *   <li>the role's tuning defaults ({@code client.id}, {@code linger.ms}, timeouts, {@code auto.offset.reset}),
 *       which the user may change;</li>
 *   <li>the user's settings: {@code bootstrap.servers} and the {@code kafka.*} pass-through
 *       ({@link KafkaClientSettings}, also fed by {@code --kafka-config} and {@code ACTIONGATE_KAFKA_*}), plus a
 *       role's own prefix such as {@code executor.producer.*};</li>
 *   <li>what correctness needs ({@code enable.idempotence=true} and {@code acks=all} for every producer, the role's
 *       {@code transactional.id}, {@code isolation.level=read_committed} and {@code enable.auto.commit=false} for
 *       every consumer). A user setting that contradicts one of them is refused with a {@link ConfigException}
 *       naming the key, before any client is created: a weaker setting never takes effect silently.</li>
 * </ol>
 * A consumer's {@code group.id} is the role's: the one it names, or none for a consumer that assigns partitions
 * itself (a pass-through {@code group.id} is dropped, as it would join every client to one group).
 *
 * <p>It lives in {@code schemas-avro} beside {@link KafkaClientSettings} because that is the lowest module with
 * {@code kafka-clients} that every Kafka-talking module already depends on, the {@code client} library included;
 * it adds no dependency (no Jetty, no Streams) to a tool host's classpath.
 */
public final class KafkaClients {

    private final Map<String, Object> settings;

    private KafkaClients(Map<String, ?> settings) {
        this.settings = Map.copyOf(settings);
    }

    /** Clients over the user's settings: {@code bootstrap.servers} and the pass-through keys, prefix removed. */
    public static KafkaClients of(Map<String, ?> settings) {
        Map<String, Object> copy = new HashMap<>();
        settings.forEach((key, value) -> {
            if (value != null) {
                copy.put(key, value);
            }
        });
        return new KafkaClients(copy);
    }

    /** Clients over {@code bootstrapServers} and the pass-through keys ({@code bootstrap.servers} among them loses). */
    public static KafkaClients of(String bootstrapServers, Map<String, ?> passThrough) {
        Map<String, Object> copy = new HashMap<>(of(passThrough).settings);
        copy.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, Objects.requireNonNull(bootstrapServers));
        return new KafkaClients(copy);
    }

    /** Clients over actiongate's flat configuration: its {@code bootstrap.servers} and {@code kafka.*} keys. */
    public static KafkaClients fromConfig(Map<String, String> flatConfig) {
        return of(KafkaClientSettings.from(flatConfig));
    }

    /** These clients with {@code more} user settings on top (a role's own prefix, {@code executor.producer.*}). */
    public KafkaClients with(Map<String, ?> more) {
        Map<String, Object> merged = new HashMap<>(settings);
        merged.putAll(of(more).settings);
        return new KafkaClients(merged);
    }

    /** The user's settings these clients start from. */
    public Map<String, Object> settings() {
        return settings;
    }

    /** An idempotent producer with {@code acks=all}, {@code linger.ms=0} unless the role or the user says otherwise. */
    public ProducerSpec producer(String clientId) {
        return new ProducerSpec(this, clientId);
    }

    /** A consumer of committed records only that commits its offsets itself, if at all, and joins no group. */
    public ConsumerSpec consumer(String clientId) {
        return new ConsumerSpec(this, clientId);
    }

    /** An admin client. */
    public AdminSpec admin(String clientId) {
        return new AdminSpec(this, clientId);
    }

    /** The layers of one client's configuration; {@link #config()} resolves them. */
    public abstract static class Spec<S extends Spec<S>> {

        private final KafkaClients clients;
        private final String kind;
        private final Map<String, Object> defaults = new LinkedHashMap<>();
        private final Map<String, Object> required = new LinkedHashMap<>();
        private final Map<String, Object> decided = new LinkedHashMap<>();

        Spec(KafkaClients clients, String kind, String clientId) {
            this.clients = clients;
            this.kind = kind;
            defaults.put(CommonClientConfigs.CLIENT_ID_CONFIG, Objects.requireNonNull(clientId));
        }

        @SuppressWarnings("unchecked") // S is the subclass itself (ProducerSpec extends Spec<ProducerSpec>)
        private S self() {
            return (S) this;
        }

        /** A role default the user's settings may change (a timeout, {@code linger.ms}, a fetch size). */
        public S defaultTo(String key, Object value) {
            defaults.put(key, value);
            return self();
        }

        /** A setting the role needs: a user setting with another value is refused, naming the key. */
        S require(String key, Object value) {
            required.put(key, value);
            return self();
        }

        /**
         * A setting the role decides, from its own configuration key or its nature; a pass-through value is replaced
         * ({@code null} removes it).
         */
        public S set(String key, Object value) {
            decided.put(key, value);
            return self();
        }

        /**
         * The client's configuration: the role's defaults, the user's settings over them, what the role needs.
         *
         * @throws ConfigException when a user setting would weaken what the role needs
         */
        public Map<String, Object> config() {
            Map<String, Object> config = new HashMap<>(defaults);
            config.putAll(clients.settings);
            required.forEach((key, value) -> {
                Object given = clients.settings.get(key);
                if (given != null && !same(key, given, value)) {
                    throw new ConfigException(key, given, "actiongate's " + kind + " " + defaults.get(
                            CommonClientConfigs.CLIENT_ID_CONFIG) + " needs " + key + "=" + value
                            + "; remove the setting (kafka." + key + " or the role's own prefix)");
                }
                config.put(key, value);
            });
            decided.forEach((key, value) -> {
                if (value == null) {
                    config.remove(key);
                } else {
                    config.put(key, value);
                }
            });
            return config;
        }

        private static boolean same(String key, Object given, Object needed) {
            String a = String.valueOf(given).strip().toLowerCase(Locale.ROOT);
            String b = String.valueOf(needed).strip().toLowerCase(Locale.ROOT);
            if (ProducerConfig.ACKS_CONFIG.equals(key)) {
                a = a.equals("-1") ? "all" : a;
                b = b.equals("-1") ? "all" : b;
            }
            return a.equals(b);
        }
    }

    /** A producer's configuration. */
    public static final class ProducerSpec extends Spec<ProducerSpec> {

        ProducerSpec(KafkaClients clients, String clientId) {
            super(clients, "producer", clientId);
            defaultTo(ProducerConfig.LINGER_MS_CONFIG, 0);
            require(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
            require(ProducerConfig.ACKS_CONFIG, "all");
        }

        /** A transactional producer with this {@code transactional.id}; a user's other id is refused. */
        public ProducerSpec transactional(String transactionalId) {
            return require(ProducerConfig.TRANSACTIONAL_ID_CONFIG, Objects.requireNonNull(transactionalId));
        }

        public <K, V> KafkaProducer<K, V> create(Serializer<K> keySerializer, Serializer<V> valueSerializer) {
            return new KafkaProducer<>(config(), keySerializer, valueSerializer);
        }
    }

    /** A consumer's configuration. */
    public static final class ConsumerSpec extends Spec<ConsumerSpec> {

        /** How long a {@link #follower()}'s fetch waits at the broker when nothing is new. */
        public static final int FOLLOWER_FETCH_MAX_WAIT_MS = 5_000;

        /**
         * How long closing a follower waits. It has no group and commits nothing: all a longer close would wait for
         * is the fetch the broker holds, up to {@link #FOLLOWER_FETCH_MAX_WAIT_MS}, since the broker answers a
         * connection's requests in order and the fetch session's closing request queues behind it. Nobody needs
         * that fetch any more; the broker drops the session on its own.
         */
        public static final CloseOptions FOLLOWER_CLOSE = CloseOptions.timeout(Duration.ofMillis(200));

        ConsumerSpec(KafkaClients clients, String clientId) {
            super(clients, "consumer", clientId);
            defaultTo(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            require(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            require(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            set(ConsumerConfig.GROUP_ID_CONFIG, null);
        }

        /**
         * A consumer that assigns its partitions once and then only reads on, never pausing, seeking or being
         * reassigned (a policy reader, a follower of a role's own state topic): its fetch waits at the broker up to
         * {@link #FOLLOWER_FETCH_MAX_WAIT_MS} when nothing is new, instead of Kafka's half second. A fetch is
         * answered as soon as a record arrives, so this costs a follower no latency; it spares an idle node the two
         * empty fetches a second of each follower. A consumer that pauses, seeks or is reassigned must not use it:
         * it cannot fetch again from that broker until the held fetch returns. Close it with
         * {@link #FOLLOWER_CLOSE}.
         */
        public ConsumerSpec follower() {
            return defaultTo(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, FOLLOWER_FETCH_MAX_WAIT_MS);
        }

        /** A member of this consumer group (its offsets committed by the role, never automatically). */
        public ConsumerSpec group(String groupId) {
            return set(ConsumerConfig.GROUP_ID_CONFIG, Objects.requireNonNull(groupId));
        }

        public <K, V> KafkaConsumer<K, V> create(Deserializer<K> keyDeserializer, Deserializer<V> valueDeserializer) {
            return new KafkaConsumer<>(config(), keyDeserializer, valueDeserializer);
        }
    }

    /** An admin client's configuration. */
    public static final class AdminSpec extends Spec<AdminSpec> {

        AdminSpec(KafkaClients clients, String clientId) {
            super(clients, "admin client", clientId);
        }

        public Admin create() {
            return Admin.create(config());
        }

        /**
         * Creates {@code topic} unless it exists, with an admin client of this configuration opened for the call:
         * true when this call created it. {@code what} names the topic in a failure (e.g. "the notifier's state
         * topic").
         */
        public boolean createTopicIfAbsent(NewTopic topic, String what) {
            try (Admin admin = create()) {
                admin.createTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
                return true;
            } catch (ExecutionException e) {
                if (e.getCause() instanceof TopicExistsException) {
                    return false;
                }
                throw new IllegalStateException("cannot create or find " + what + " " + topic.name() + ": "
                        + e.getCause(), e.getCause());
            } catch (TimeoutException e) {
                throw new IllegalStateException("the broker did not answer creating " + topic.name(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
    }
}
