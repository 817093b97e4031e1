package io.actiongate.http;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.client.ActionGateClient;
import io.actiongate.config.CommonConfig;
import io.actiongate.kafka.KafkaClients;
import io.actiongate.key.ActionKey;
import io.actiongate.mcp.HostIdentity;
import io.actiongate.policy.PolicyTopicReader;
import io.actiongate.policy.TaskOwnership;
import io.actiongate.topics.Topics;
import io.actiongate.mcp.HostTokens;
import io.actiongate.runtime.BearerHeader;
import io.actiongate.runtime.BearerTokens;

/**
 * What {@code POST /v1/proposals} needs besides the HTTP server: the tool hosts' tokens (the MCP gateway's file
 * format), the client library (proposal building, digests, publication and receipt matching: one implementation
 * for Java, MCP and HTTP hosts) and a read-only view of the policy topic for task versions and epochs. Started by
 * a node that runs the gate role when {@value ProposalApiConfig#TOKENS_FILE_CONFIG} is set.
 */
public final class ProposalApi implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ProposalApi.class);
    private static final Duration CATCH_UP = Duration.ofSeconds(60);

    private final ProposalApiConfig config;
    private final BearerTokens<HostIdentity> tokens;
    private final ActionGateClient client;
    private final PolicyTopicReader policy;
    private volatile String reviewTemplate;

    private ProposalApi(ProposalApiConfig config, BearerTokens<HostIdentity> tokens, ActionGateClient client, PolicyTopicReader policy) {
        this.config = config;
        this.tokens = tokens;
        this.client = client;
        this.policy = policy;
        this.reviewTemplate = config.reviewUrl();
    }

    /**
     * The approval service this node runs is at {@code publicUrl} (its port is known only once it started): the
     * review URL points there unless {@value ProposalApiConfig#REVIEW_URL_CONFIG} is set.
     */
    public void reviewOn(java.net.URI publicUrl) {
        if (!config.reviewUrlConfigured()) {
            String origin = publicUrl.toString();
            reviewTemplate = (origin.endsWith("/") ? origin.substring(0, origin.length() - 1) : origin)
                    + "/review/{task_id}/{tool_call_id}";
        }
    }

    /** Empty when {@value ProposalApiConfig#TOKENS_FILE_CONFIG} is unset; otherwise connects and reads the policy. */
    public static Optional<ProposalApi> start(Map<String, String> flat) {
        ProposalApiConfig config = new ProposalApiConfig(flat);
        if (config.tokensFile() == null) {
            return Optional.empty();
        }
        BearerTokens<HostIdentity> tokens = HostTokens.load(ProposalApiConfig.TOKENS_FILE_CONFIG, config.tokensFile());
        CommonConfig common = new CommonConfig(flat);
        Map<String, Object> kafka = common.kafkaClientProperties();
        ActionGateClient.Builder builder = ActionGateClient.builder().bootstrapServers(common.bootstrapServers())
                .topicPrefix(common.topicPrefix());
        kafka.forEach((k, v) -> {
            if (!k.equals(CommonConfig.BOOTSTRAP_SERVERS_CONFIG)) {
                builder.kafkaProperty(k, v);
            }
        });
        ActionGateClient client = builder.build();
        try {
            PolicyTopicReader policy = new PolicyTopicReader(KafkaClients.of(kafka)
                    .consumer("actiongate-http-proposals-policy").follower()
                    .create(new StringDeserializer(), new ByteArrayDeserializer()),
                    Topics.POLICY.name(common.topicPrefix()),
                    TaskOwnership.defaultOrg(flat)).start(CATCH_UP, "actiongate-http-proposals-policy");
            LOG.info("POST /v1/proposals on: tool host tokens from {}", config.tokensFile());
            return Optional.of(new ProposalApi(config, tokens, client, policy));
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
    }

    ProposalApiConfig config() {
        return config;
    }

    ActionGateClient client() {
        return client;
    }

    PolicyTopicReader policy() {
        return policy;
    }

    /** Wakes {@code wake} on every committed receipt of {@code actionKey} the client reads (see {@link ReceiptFeed}). */
    AutoCloseable watch(String actionKey, Runnable wake) {
        ActionKey key = ActionKey.parse(actionKey);
        return client.watch(key.taskId(), key.toolCallId(), receipt -> wake.run());
    }

    /** The tool host whose token {@code call} bears, if any (per request). */
    Optional<HostIdentity> hostOf(HttpCall call) {
        return tokens.fromHeader(call.header(BearerHeader.AUTHORIZATION));
    }

    /**
     * The review page of {@code key}, or null when none is configured. The template takes {@code {task_id}} and
     * {@code {tool_call_id}} as the MCP gateway's {@code mcp.gateway.review.url} does; ids are of the id alphabet,
     * so they are valid path characters as they are.
     */
    String reviewUrl(ActionKey key) {
        String template = reviewTemplate;
        return template == null ? null
                : template.replace("{task_id}", key.taskId()).replace("{tool_call_id}", key.toolCallId());
    }

    @Override
    public void close() {
        try {
            policy.close();
        } finally {
            client.close();
        }
    }
}
