package io.actiongate.node;

import java.util.Map;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;

/** Keys of one actiongate process that belong to no single role. */
public final class NodeConfig extends AbstractConfig {

    public static final String HTTP_ADVERTISED_HOST_CONFIG = "http.advertised.host";
    public static final String HTTP_ADVERTISED_HOST_DOC = "Host name other gate instances use to reach this one's "
            + "HTTP surface when they forward an action query (Kafka Streams application.server). In Kubernetes the "
            + "pod's stable DNS name; the default suits one machine.";

    public static final String SHUTDOWN_TIMEOUT_CONFIG = "node.shutdown.timeout.ms";
    public static final String SHUTDOWN_TIMEOUT_DOC = "How long stopping the gate may take before it is abandoned.";

    public static final ConfigDef DEF = new ConfigDef()
            .define(HTTP_ADVERTISED_HOST_CONFIG, Type.STRING, "127.0.0.1", new ConfigDef.NonEmptyString(),
                    Importance.MEDIUM, HTTP_ADVERTISED_HOST_DOC)
            .define(SHUTDOWN_TIMEOUT_CONFIG, Type.LONG, 30_000L, ConfigDef.Range.atLeast(0), Importance.LOW,
                    SHUTDOWN_TIMEOUT_DOC);

    public NodeConfig(Map<String, ?> originals) {
        super(DEF, originals, false);
    }

    public String advertisedHost() {
        return getString(HTTP_ADVERTISED_HOST_CONFIG);
    }

    public long shutdownTimeoutMs() {
        return getLong(SHUTDOWN_TIMEOUT_CONFIG);
    }
}
