package io.actiongate.mcp;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

import io.modelcontextprotocol.spec.McpSchema;

import io.actiongate.avro.ApprovalMode;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.ToolDescriptor;
import io.actiongate.kafka.KafkaClients;
import io.actiongate.policy.WrittenPolicy;
import io.actiongate.serde.AvroSetup;
import io.actiongate.kafka.KafkaFailures;
import io.actiongate.topics.Topics;

/**
 * {@code mcp import}: an operator trusts named upstream tools, and only those. Each becomes a {@code ToolDescriptor}
 * ({@code tool:PROVIDER:TOOL}) with the upstream's current schema hash and annotations; approval is {@code NONE} only
 * for a tool that says {@code readOnlyHint=true} and not {@code destructiveHint=true}, {@code HUMAN} otherwise. A
 * tool the operator did not name gets no descriptor, so the gate rejects it whatever its annotations claim.
 */
public final class McpImport {

    public static final int DEFAULT_MAX_INPUT_BYTES = 4096;

    private McpImport() {
    }

    /** The descriptors for the tools named in {@code trusted}; a name the upstream does not offer is an error. */
    static List<ToolDescriptor> descriptors(Upstream upstream, Set<String> trusted) {
        AvroSetup.install();
        String provider = upstream.provider();
        List<McpSchema.Tool> offered = upstream.tools();
        List<ToolDescriptor> out = new ArrayList<>();
        Set<String> missing = new java.util.TreeSet<>(trusted);
        for (McpSchema.Tool tool : offered) {
            if (!trusted.contains(tool.name())) {
                continue;
            }
            missing.remove(tool.name());
            McpSchema.ToolAnnotations a = tool.annotations();
            Boolean readOnly = a == null ? null : a.readOnlyHint();
            Boolean destructive = a == null ? null : a.destructiveHint();
            boolean read = Boolean.TRUE.equals(readOnly) && !Boolean.TRUE.equals(destructive);
            out.add(ToolDescriptor.newBuilder()
                    .setProvider(provider).setToolName(tool.name()).setOperation(upstream.operation(tool.name()))
                    .setSchemaHash(Upstream.schemaHash(tool))
                    .setReadOnlyHint(readOnly).setDestructiveHint(destructive)
                    .setIdempotentHint(a == null ? null : a.idempotentHint())
                    .setOpenWorldHint(a == null ? null : a.openWorldHint())
                    .setApproval(read ? ApprovalMode.NONE : ApprovalMode.HUMAN)
                    .setMaxInputBytes(DEFAULT_MAX_INPUT_BYTES).setEnabled(true)
                    .build());
        }
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("the upstream offers no tool named " + missing);
        }
        return out;
    }

    /** The names of every tool upstream {@code upstreamName} of the gateway configuration offers now. */
    public static Set<String> offered(GatewayConfig config, String upstreamName) {
        try (Upstream upstream = new Upstream(upstream(config, upstreamName), Duration.ofSeconds(30))) {
            Set<String> names = new java.util.TreeSet<>();
            upstream.connect().tools().forEach(t -> names.add(t.name()));
            return names;
        }
    }

    private static GatewayConfig.UpstreamConfig upstream(GatewayConfig config, String upstreamName) {
        return config.upstreams().stream().filter(x -> x.name().equals(upstreamName))
                .findFirst().orElseThrow(() -> new IllegalArgumentException("no upstream named " + upstreamName));
    }

    /**
     * Connects to upstream {@code upstreamName} of the gateway configuration, and publishes the descriptors of the
     * {@code trusted} tools on {@code policy}. Returns them.
     */
    public static List<ToolDescriptor> run(GatewayConfig config, String upstreamName, Set<String> trusted)
            throws InterruptedException {
        GatewayConfig.UpstreamConfig u = upstream(config, upstreamName);
        List<ToolDescriptor> descriptors;
        try (Upstream upstream = new Upstream(u, Duration.ofSeconds(30))) {
            descriptors = descriptors(upstream.connect(), trusted);
        }
        String topic = Topics.POLICY.name(config.topicPrefix());
        try (KafkaProducer<String, PolicyRecord> producer = KafkaClients.of(config.bootstrapServers(),
                config.kafkaClient()).producer("actiongate-mcp-import")
                .create(Topics.POLICY.keySerde().serializer(), Topics.POLICY.valueSerde().serializer())) {
            for (ToolDescriptor d : descriptors) {
                producer.send(new ProducerRecord<>(topic, WrittenPolicy.key(d),
                        PolicyRecord.newBuilder().setKind("tool").setBody(d).build()))
                        .get(30, TimeUnit.SECONDS);
            }
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            throw new IllegalStateException("cannot publish the tool descriptors on " + topic + ": "
                    + KafkaFailures.describe(cause, KafkaFailures.Access.WRITE), cause);
        }
        return descriptors;
    }
}
