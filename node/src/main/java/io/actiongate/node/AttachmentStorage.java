package io.actiongate.node;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.executor.ExecutorConfig;
import io.actiongate.gate.AttachmentCheck;
import io.actiongate.gate.StorageAttachmentCheck;
import io.actiongate.kafka.KafkaClients;
import io.actiongate.policy.PolicyTopicReader;
import io.actiongate.storage.AttachmentCleaner;
import io.actiongate.storage.AttachmentDispatchGuard;
import io.actiongate.storage.AttachmentVerifier;
import io.actiongate.storage.BoundedAdmissionCheck;
import io.actiongate.storage.CleanupMetrics;
import io.actiongate.storage.ObjectStoreConfig;
import io.actiongate.storage.PolicyTopicSchemaHashes;
import io.actiongate.storage.PreDispatchCheck;
import io.actiongate.storage.S3AttachmentStore;
import io.actiongate.topics.Topics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The object-storage parts of a node, from the {@code storage.*} keys. Without {@code storage.enabled=true} both
 * checks fail closed (nothing with attachments is admitted or dispatched) and no cleaner runs.
 *
 * <ul>
 *   <li>gate: a check at admission (HEAD, the store's own SHA-256 checksum or else the bytes hashed), bounded by
 *       {@code storage.admission.timeout.ms};</li>
 *   <li>executor: the pre-dispatch guard (live tool schema hash from the policy topic, bytes read and verified),
 *       and the cleaner that deletes an action's staged objects once its receipt settles.</li>
 * </ul>
 */
final class AttachmentStorage implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AttachmentStorage.class);

    private final ObjectStoreConfig config;
    private final List<AutoCloseable> owned = new ArrayList<>();

    AttachmentStorage(Map<String, String> nodeConfig) {
        this.config = ObjectStoreConfig.fromNodeConfig(nodeConfig);
    }

    boolean enabled() {
        return config.enabled();
    }

    AttachmentCheck admissionCheck() {
        if (!config.enabled()) {
            return AttachmentCheck.WITHOUT_STORAGE;
        }
        S3AttachmentStore store = own(S3AttachmentStore.create(config, config.admissionTimeout()));
        BoundedAdmissionCheck check = own(new BoundedAdmissionCheck(new AttachmentVerifier(store, config.keyPrefix(),
                config.admissionTrustsStoreChecksum()), config, config.admissionTimeout(), 4));
        return new StorageAttachmentCheck(check);
    }

    /** The executor's guard; also starts the policy reader and the receipts cleaner, both owned by this object. */
    PreDispatchCheck executorCheck(ExecutorConfig executor, PrometheusRegistry registry) {
        if (!config.enabled()) {
            return PreDispatchCheck.WITHOUT_STORAGE;
        }
        S3AttachmentStore store = own(S3AttachmentStore.create(config));
        String prefix = executor.topicPrefix();

        KafkaClients clients = KafkaClients.of(executor.kafkaClientProperties());
        // tool descriptors only: no task is read here, so no default owner applies
        PolicyTopicSchemaHashes schemas = own(new PolicyTopicSchemaHashes(new PolicyTopicReader(
                clients.consumer(executor.executorId() + "-policy").follower()
                        .create(new StringDeserializer(), new ByteArrayDeserializer()),
                Topics.POLICY.name(prefix), null)));
        thread("actiongate-executor-policy", schemas);

        AttachmentCleaner cleaner = own(new AttachmentCleaner(
                cleanerConsumer(clients, executor).create(new StringDeserializer(), new ByteArrayDeserializer()),
                Topics.RECEIPTS.valueSerde().deserializer(), Topics.RECEIPTS.name(prefix), store,
                new CleanupMetrics(registry), Duration.ofMillis(500), Duration.ofSeconds(5)));
        thread("actiongate-attachment-cleaner", cleaner);
        LOG.info("attachments: bucket {} at {}, cleaner group {}", config.bucket(),
                config.endpoint().map(Object::toString).orElse("the AWS regional endpoint"),
                executor.groupId() + "-attachment-cleaner");
        return new AttachmentDispatchGuard(new AttachmentVerifier(store, config.keyPrefix()), config, schemas);
    }

    /**
     * The cleaner's consumer of receipts. Nobody waits for a cleanup, so its fetch waits at the broker until a MiB of
     * receipts has come or {@link KafkaClients.ConsumerSpec#FOLLOWER_FETCH_MAX_WAIT_MS} has passed: one fetch per
     * MiB under load rather than one per commit of the gate (which every reader of receipts pays for), and one every
     * 5 s at idle rather than every second. It is no follower (it seeks after a failed deletion, and its group moves
     * partitions between executors), so a seek or a new partition may wait for the fetch in flight: a cleanup up to
     * 5 s later, on top of the 5 s retry after a failed deletion. Its thread closes it; nothing waits for that close.
     */
    static KafkaClients.ConsumerSpec cleanerConsumer(KafkaClients clients, ExecutorConfig executor) {
        return clients.consumer(executor.executorId() + "-attachment-cleaner")
                .group(executor.groupId() + "-attachment-cleaner")
                .defaultTo(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 1 << 20)
                .defaultTo(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG,
                        KafkaClients.ConsumerSpec.FOLLOWER_FETCH_MAX_WAIT_MS);
    }

    private static void thread(String name, Runnable body) {
        Thread thread = new Thread(() -> {
            try {
                body.run();
            } catch (RuntimeException e) {
                LOG.error("{} stopped: {}", name, e.getClass().getSimpleName());
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
    }

    private <T extends AutoCloseable> T own(T resource) {
        owned.add(0, resource);
        return resource;
    }

    @Override
    public void close() {
        for (AutoCloseable resource : owned) {
            try {
                resource.close();
            } catch (Exception e) {
                LOG.warn("error closing attachment storage: {}", e.getClass().getSimpleName());
            }
        }
        owned.clear();
    }
}
