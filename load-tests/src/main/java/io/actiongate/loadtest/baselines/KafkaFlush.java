package io.actiongate.loadtest.baselines;

import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;

/**
 * Kafka's side of the fsync rows: {@code log.flush.interval.messages=1} as the cluster-wide dynamic
 * default, so that every topic without its own {@code flush.messages} (contract, changelog and internal topics
 * alike) fsyncs each write before it is acknowledged; removed again afterwards (Kafka's default: no fsync).
 */
public final class KafkaFlush {

    public static final String FLUSH_MESSAGES = "log.flush.interval.messages";

    private KafkaFlush() {
    }

    /** Sets ({@code perWrite}) or removes the cluster-wide flush-per-message default. */
    public static void set(Admin admin, boolean perWrite) throws Exception {
        ConfigResource cluster = new ConfigResource(ConfigResource.Type.BROKER, "");
        AlterConfigOp op = perWrite
                ? new AlterConfigOp(new ConfigEntry(FLUSH_MESSAGES, "1"), AlterConfigOp.OpType.SET)
                : new AlterConfigOp(new ConfigEntry(FLUSH_MESSAGES, ""), AlterConfigOp.OpType.DELETE);
        admin.incrementalAlterConfigs(Map.of(cluster, List.of(op))).all().get();
        // the broker applies a dynamic default asynchronously: wait until it reports it
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            Map<String, String> k = PostgresBench.kafkaDurability(admin);
            if (perWrite == "1".equals(k.get(FLUSH_MESSAGES))) {
                return;
            }
            Thread.sleep(100);
        }
    }
}
