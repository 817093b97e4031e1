package io.actiongate.topics.admin;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import io.actiongate.kafka.KafkaFailures;
import io.actiongate.topics.TopicSpec;
import io.actiongate.topics.Topics;

/**
 * Creates the topics of docs/contract.md section 2 under a prefix, safe to run any number of times. A topic that
 * already exists is never changed: its partition count and the configs of its {@link TopicSpec#configs()} (cleanup
 * policy, and retention for delete topics) are compared with the spec and every difference is reported as
 * {@link TopicDrift}.
 */
public final class TopicsCreator {

    private static final long PROPAGATION_BACKOFF_MS = 100;

    private final Admin admin;
    private final long timeoutMs;

    /** {@code timeoutMs} bounds each admin call. */
    public TopicsCreator(Admin admin, long timeoutMs) {
        this.admin = Objects.requireNonNull(admin);
        this.timeoutMs = timeoutMs;
    }

    /** Settings of one run. */
    public record Plan(String prefix, int partitions, short replicationFactor, List<TopicSpec<?, ?>> specs) {
        public Plan {
            Objects.requireNonNull(prefix);
            if (partitions < 1) {
                throw new IllegalArgumentException("partitions must be at least 1, got " + partitions);
            }
            if (replicationFactor < 1) {
                throw new IllegalArgumentException("replication factor must be at least 1, got "
                        + replicationFactor);
            }
            specs = List.copyOf(specs);
        }

        /** Every topic of {@link Topics#ALL}. */
        public static Plan of(String prefix, int partitions, short replicationFactor) {
            return new Plan(prefix, partitions, replicationFactor, Topics.ALL);
        }
    }

    public TopicsReport create(Plan plan) {
        Map<String, TopicSpec<?, ?>> byName = new LinkedHashMap<>();
        plan.specs().forEach(spec -> byName.put(spec.name(plan.prefix()), spec));

        Set<String> existing = await(admin.listTopics().names(), "list topics");
        Map<String, TopicResult.Action> actions = new HashMap<>();
        List<NewTopic> toCreate = new ArrayList<>();
        byName.forEach((name, spec) -> {
            if (existing.contains(name)) {
                actions.put(name, TopicResult.Action.EXISTS);
            } else {
                toCreate.add(new NewTopic(name, plan.partitions(), plan.replicationFactor()).configs(spec.configs()));
            }
        });
        if (!toCreate.isEmpty()) {
            Map<String, KafkaFuture<Void>> created = admin.createTopics(toCreate).values();
            created.forEach((name, future) -> actions.put(name, createOne(name, future)));
        }

        Set<String> toCheck = actions.entrySet().stream()
                .filter(e -> e.getValue() == TopicResult.Action.EXISTS).map(Map.Entry::getKey)
                .collect(Collectors.toSet());
        Map<String, List<TopicDrift>> drifts = compare(toCheck, byName, plan.partitions());

        List<TopicResult> results = new ArrayList<>();
        byName.keySet().forEach(name -> results.add(actions.get(name) == TopicResult.Action.CREATED
                ? TopicResult.created(name)
                : TopicResult.exists(name, drifts.getOrDefault(name, List.of()))));
        return new TopicsReport(results);
    }

    private TopicResult.Action createOne(String name, KafkaFuture<Void> future) {
        try {
            future.get(timeoutMs, TimeUnit.MILLISECONDS);
            return TopicResult.Action.CREATED;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TopicExistsException) {
                // created by someone else since we listed: compare it like any existing topic
                return TopicResult.Action.EXISTS;
            }
            throw failure("create topic " + name, e.getCause());
        } catch (TimeoutException e) {
            throw failure("create topic " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failure("create topic " + name, e);
        }
    }

    private Map<String, List<TopicDrift>> compare(Collection<String> names, Map<String, TopicSpec<?, ?>> specs,
                                                  int partitions) {
        Map<String, List<TopicDrift>> drifts = new HashMap<>();
        if (names.isEmpty()) {
            return drifts;
        }
        Map<String, TopicDescription> descriptions =
                awaitPropagated(() -> admin.describeTopics(names).allTopicNames(), "describe topics");
        List<ConfigResource> resources = names.stream()
                .map(n -> new ConfigResource(ConfigResource.Type.TOPIC, n)).collect(Collectors.toList());
        Map<ConfigResource, Config> configs =
                awaitPropagated(() -> admin.describeConfigs(resources).all(), "describe topic configs");

        for (String name : names) {
            List<TopicDrift> found = new ArrayList<>();
            int actualPartitions = descriptions.get(name).partitions().size();
            if (actualPartitions != partitions) {
                found.add(new TopicDrift(TopicDrift.PARTITIONS, Integer.toString(partitions),
                        Integer.toString(actualPartitions)));
            }
            Config config = configs.get(new ConfigResource(ConfigResource.Type.TOPIC, name));
            specs.get(name).configs().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(wanted -> {
                ConfigEntry entry = config.get(wanted.getKey());
                String actual = entry == null ? "(unset)" : entry.value();
                if (!wanted.getValue().equals(actual)) {
                    found.add(new TopicDrift(wanted.getKey(), wanted.getValue(), actual));
                }
            });
            drifts.put(name, found);
        }
        return drifts;
    }

    /**
     * A topic just created (by us or by someone else) is listed by the controller before every broker's metadata
     * knows it; describing it can answer UnknownTopicOrPartition for a moment. Retry that until the timeout.
     */
    private <T> T awaitPropagated(Supplier<KafkaFuture<T>> call, String what) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            try {
                return call.get().get(timeoutMs, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() > deadline) {
                    throw failure(what, e.getCause());
                }
            } catch (TimeoutException e) {
                throw failure(what, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw failure(what, e);
            }
            try {
                Thread.sleep(PROPAGATION_BACKOFF_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw failure(what, e);
            }
        }
    }

    private <T> T await(KafkaFuture<T> future, String what) {
        try {
            return future.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw failure(what, e.getCause());
        } catch (TimeoutException e) {
            throw failure(what, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failure(what, e);
        }
    }

    private TopicsException failure(String what, Throwable cause) {
        boolean timedOut = cause instanceof TimeoutException
                || cause instanceof org.apache.kafka.common.errors.TimeoutException;
        String reason = timedOut
                ? "no answer from Kafka within " + timeoutMs + " ms"
                : KafkaFailures.securityCause(cause, KafkaFailures.Access.ACCESS)
                        .orElseGet(() -> cause.getClass().getSimpleName() + ": " + cause.getMessage());
        return new TopicsException("cannot " + what + ": " + reason, cause);
    }
}
