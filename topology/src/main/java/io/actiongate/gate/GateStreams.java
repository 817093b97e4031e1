package io.actiongate.gate;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.gate.internal.CredentialCheck;

/**
 * Runs the gate topology: exactly-once v2, RocksDB stores under {@code state.dir}. Used by
 * {@code actiongate run --roles=gate} and {@code actiongate dev}.
 */
public final class GateStreams implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(GateStreams.class);

    private final Topology topology;
    private final KafkaStreams streams;

    private GateStreams(Topology topology, Properties properties) {
        this.topology = topology;
        this.streams = new KafkaStreams(topology, properties);
    }

    /** A gate over {@code config} with the default credential scanner; not started. */
    public static GateStreams create(GateConfig config) {
        return new GateStreams(GateTopology.build(config), properties(config));
    }

    /** A gate with another credential check (tests, embedders); not started. */
    public static GateStreams create(GateConfig config, CredentialCheck credentials) {
        return new GateStreams(GateTopology.build(config, credentials), properties(config));
    }

    /** The Kafka Streams properties of the gate: contract settings first, then {@code streams.*} overrides. */
    public static Properties properties(GateConfig config) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, config.getString(GateConfig.APPLICATION_ID_CONFIG));
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, config.getString(GateConfig.BOOTSTRAP_SERVERS_CONFIG));
        p.put(StreamsConfig.STATE_DIR_CONFIG, config.getString(GateConfig.STATE_DIR_CONFIG));
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, config.getInt(GateConfig.NUM_STREAM_THREADS_CONFIG));
        for (Map.Entry<String, Object> e : config.streamsOverrides().entrySet()) {
            p.put(e.getKey(), e.getValue());
        }
        // the gate's safety rests on these: an override cannot weaken them
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        return p;
    }

    public Topology topology() {
        return topology;
    }

    /** The running streams (interactive queries, state listeners, metrics). */
    public KafkaStreams streams() {
        return streams;
    }

    public void start() {
        LOG.info("starting gate topology:\n{}", topology.describe());
        streams.start();
    }

    public void close(Duration timeout) {
        streams.close(timeout);
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(30));
    }
}
