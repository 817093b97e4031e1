package io.actiongate.chaos.check;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;

/**
 * Check (l) of a cluster run: every topic on the cluster (the actiongate topics, the gate's Streams changelog and
 * repartition topics, {@code __consumer_offsets}, {@code __transaction_state}) has every partition on
 * {@code replicas} brokers, an effective {@code min.insync.replicas} of at least {@code minIsr}, and unclean leader
 * election off. The two Kafka internal topics must exist, so a run that never wrote a transaction or an offset cannot
 * pass for a checked one.
 */
public final class ReplicationCheck {

    /** What the check found: the topics it looked at and every problem. */
    public record Findings(Set<String> topics, List<String> problems) {
    }

    static final List<String> REQUIRED = List.of("__consumer_offsets", "__transaction_state");

    private ReplicationCheck() {
    }

    public static Findings run(Admin admin, int replicas, int minIsr) throws Exception {
        Set<String> names = new TreeSet<>(admin.listTopics(new ListTopicsOptions().listInternal(true)).names()
                .get(60, TimeUnit.SECONDS));
        List<String> problems = new ArrayList<>();
        for (String required : REQUIRED) {
            if (!names.contains(required)) {
                problems.add(required + " does not exist: nothing used it, so it was not checked");
            }
        }
        if (names.isEmpty()) {
            return new Findings(names, problems);
        }
        Map<String, TopicDescription> described = admin.describeTopics(names).allTopicNames().get(60,
                TimeUnit.SECONDS);
        for (TopicDescription d : described.values()) {
            for (TopicPartitionInfo p : d.partitions()) {
                if (p.replicas().size() < replicas) {
                    problems.add(d.name() + "-" + p.partition() + " has " + p.replicas().size() + " replica(s), not "
                            + replicas);
                    break;
                }
            }
        }
        Collection<ConfigResource> resources = names.stream()
                .map(n -> new ConfigResource(ConfigResource.Type.TOPIC, n)).toList();
        Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all().get(60, TimeUnit.SECONDS);
        configs.forEach((resource, config) -> {
            ConfigEntry isr = config.get("min.insync.replicas");
            if (isr == null || Integer.parseInt(isr.value()) < minIsr) {
                problems.add(resource.name() + " has min.insync.replicas=" + (isr == null ? "?" : isr.value())
                        + ", not at least " + minIsr);
            }
            ConfigEntry unclean = config.get("unclean.leader.election.enable");
            if (unclean != null && Boolean.parseBoolean(unclean.value())) {
                problems.add(resource.name() + " has unclean.leader.election.enable=true");
            }
        });
        return new Findings(names, problems);
    }
}
