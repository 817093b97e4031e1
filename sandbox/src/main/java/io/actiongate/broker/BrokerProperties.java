package io.actiongate.broker;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** The broker configuration of a one-node, loopback-only KRaft cluster. */
final class BrokerProperties {

    /** The broker's wait before it retries adding a partition to a transaction that is still completing. */
    static final String TXN_RETRY_BACKOFF_MS = "add.partitions.to.txn.retry.backoff.ms";

    private BrokerProperties() {
    }

    static Map<String, String> singleNode(int nodeId, int clientPort, int controllerPort, Path logDir) {
        String host = Ports.LOOPBACK;
        String client = EmbeddedKafkaBroker.CLIENT_LISTENER;
        String controller = EmbeddedKafkaBroker.CONTROLLER_LISTENER;
        Map<String, String> p = new LinkedHashMap<>();
        p.put("process.roles", "broker,controller");
        p.put("node.id", Integer.toString(nodeId));
        p.put("controller.quorum.voters", nodeId + "@" + host + ":" + controllerPort);
        p.put("controller.listener.names", controller);
        p.put("inter.broker.listener.name", client);
        p.put("listeners", client + "://" + host + ":" + clientPort + "," + controller + "://" + host + ":"
                + controllerPort);
        p.put("advertised.listeners", client + "://" + host + ":" + clientPort);
        p.put("listener.security.protocol.map", client + ":PLAINTEXT," + controller + ":PLAINTEXT");
        p.put("log.dirs", logDir.toString());
        p.put("metadata.log.dir", logDir.toString());

        // one node: every internal topic has one replica and needs one in-sync replica
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "5");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("transaction.state.log.num.partitions", "5");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("default.replication.factor", "1");
        p.put("min.insync.replicas", "1");

        // fast, explicit, quiet
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("auto.create.topics.enable", "false");
        p.put("num.partitions", "1");
        p.put("num.network.threads", "2");
        p.put("num.io.threads", "4");
        p.put("background.threads", "4");
        p.put("log.cleaner.dedupe.buffer.size", Integer.toString(8 * 1024 * 1024));
        p.put("log.cleaner.threads", "1");
        // an idle one-node cluster: the controller appends a no-op to the metadata log every 500 ms by default, which
        // the broker then fetches and applies; a single node learns nothing from it that often
        p.put("metadata.max.idle.interval.ms", "5000");
        // a transaction's first write to a partition that finds the producer's previous transaction still writing
        // its markers is answered CONCURRENT_TRANSACTIONS and retried by the broker after this backoff (Kafka: 20 ms).
        // The gate commits as soon as it has drained its input and writes again at once, so under steady load about
        // one transaction in three waited those 20 ms for markers that take a few. 1 ms gained as much with 16 hosts
        // waiting but cost CPU with 64 (docs/benchmark.md)
        p.put(TXN_RETRY_BACKOFF_MS, "5");
        return p;
    }
}
