package io.actiongate.mcp;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;

import io.actiongate.config.ConfigDefs;
import io.actiongate.contract.ContractLimits;
import io.actiongate.key.ActionKey;
import io.actiongate.kafka.KafkaClientSettings;
import io.actiongate.secrets.SecretReference;
import io.actiongate.policy.TaskOwnership;

/**
 * The gateway's settings, from the same flat configuration as every role ({@code bootstrap.servers},
 * {@code topic.prefix}, the {@code kafka.*} client settings every Kafka client of the gateway uses) plus the
 * {@code mcp.gateway.*} keys of {@link #CONFIG_DEF} and {@link #UPSTREAM_DEF} (docs/configuration.md is generated
 * from them). {@code taskDefaultOrg} is the gate's
 * {@code gate.task.default.org}: the gateway decides task ownership by the gate's rule. {@code tokensFile} is null
 * without static tokens, {@code oauth} null without an authorization server (at least one is set);
 * {@code sessionTask} is the task of a call whose request names none ({@code {org_id}} filled in; empty: none).
 */
public record GatewayConfig(String bootstrapServers, String topicPrefix, String host, int port, Path tokensFile,
        String reviewUrl, Duration answerTimeout, List<UpstreamConfig> upstreams, Map<String, Object> kafkaClient,
        String taskDefaultOrg, OAuthSettings oauth, String sessionTask, Duration approvalWait,
        Duration approvalProgress, int approvalMaxWaiting) {

    public GatewayConfig {
        upstreams = List.copyOf(upstreams);
        kafkaClient = Map.copyOf(kafkaClient);
    }

    @Override
    public String toString() {
        // kafka.* may hold credentials (sasl.jaas.config): only their names
        return "GatewayConfig[" + bootstrapServers + " " + topicPrefix + " " + host + ":" + port + " upstreams="
                + upstreams.stream().map(UpstreamConfig::name).toList() + " kafka=" + kafkaClient.keySet() + "]";
    }

    public static final String BOOTSTRAP_SERVERS_CONFIG = "bootstrap.servers";
    public static final String TOPIC_PREFIX_CONFIG = "topic.prefix";
    public static final String HOST_CONFIG = "mcp.gateway.host";
    public static final String PORT_CONFIG = "mcp.gateway.port";
    public static final String TOKENS_FILE_CONFIG = "mcp.gateway.tokens.file";
    public static final String REVIEW_URL_CONFIG = "mcp.gateway.review.url";
    public static final String ANSWER_TIMEOUT_MS_CONFIG = "mcp.gateway.answer.timeout.ms";
    public static final String UPSTREAMS_CONFIG = "mcp.gateway.upstreams";
    public static final String UPSTREAM_PREFIX = "mcp.gateway.upstream.";
    /** The provider of an upstream whose tools run on the upstream itself (the {@code mcp} connector). */
    public static final String MCP_PROVIDER = "mcp";

    public static final String BOOTSTRAP_SERVERS_DOC = "Kafka brokers to connect to, host:port[,host:port...] "
            + "(required for the gateway).";
    public static final String TOPIC_PREFIX_DOC = "Prefix of every actiongate topic name.";
    public static final String HOST_DOC = "Bind address.";
    public static final String PORT_DOC = "Port; 0 picks a free one.";
    public static final String TOKENS_FILE_DOC = "Mounted secret: one host a line, TOKEN PRINCIPAL_ID ORG_ID "
            + "PROFILE_ID (tokens of 16+ characters; # comments). Static tokens for simple setups; set this, "
            + "mcp.gateway.oauth.issuer, or both.";
    public static final String REVIEW_URL_DOC = "The review page: {task_id} and {tool_call_id} are filled in (the "
            + "approval service's https://HOST/review/{task_id}/{tool_call_id}), else {action_key} is replaced by the "
            + "URL-encoded key, else ?action=KEY is appended.";
    public static final String ANSWER_TIMEOUT_MS_DOC = "How long a call waits for the gate's first receipt before "
            + "answering PROPOSED (call again).";
    public static final String UPSTREAMS_DOC = "Comma list of upstream names, each [A-Za-z0-9][A-Za-z0-9_.-]{0,63}.";

    public static final String SESSION_TASK_CONFIG = "mcp.gateway.session.task";
    public static final String SESSION_TASK_DOC = "The task of a call whose request names none (no "
            + "X-ActionGate-Task-Id header, no task claim in its token): {org_id} is replaced by the host's org. The "
            + "operator creates that task (org_id set) once; none: such calls are refused.";
    /** The {@link #SESSION_TASK_CONFIG} value that turns session tasks off (a blank value takes the default). */
    public static final String NO_SESSION_TASK = "none";
    public static final String DEFAULT_SESSION_TASK = "mcp-{org_id}";
    public static final String APPROVAL_WAIT_MS_CONFIG = "mcp.gateway.approval.wait.ms";
    public static final String APPROVAL_WAIT_MS_DOC = "How long a call whose client opened the review page (URL "
            + "elicitation accepted) waits for the action to be decided and settled before answering its state "
            + "then (call again for the outcome).";
    public static final long DEFAULT_APPROVAL_WAIT_MS = 50_000L;
    public static final String APPROVAL_PROGRESS_MS_CONFIG = "mcp.gateway.approval.progress.ms";
    public static final String APPROVAL_PROGRESS_MS_DOC = "How often a call waiting for a decision (see "
            + "mcp.gateway.approval.wait.ms) sends a progress notification when its request carried a progressToken "
            + "(a client that resets its request timeout on progress then keeps the call open).";
    public static final long DEFAULT_APPROVAL_PROGRESS_MS = 5_000L;
    public static final String APPROVAL_MAX_WAITING_CONFIG = "mcp.gateway.approval.max.waiting";
    public static final String APPROVAL_MAX_WAITING_DOC = "Calls waiting for a decision at once (each holds one of "
            + "the mcp.gateway.http.threads.max threads: at most half of them); beyond that a call answers at once, "
            + "as for a client without URL elicitation.";
    public static final int DEFAULT_APPROVAL_MAX_WAITING = 4;

    public static final String OAUTH_PREFIX = "mcp.gateway.oauth.";
    public static final String OAUTH_ISSUER_CONFIG = OAUTH_PREFIX + "issuer";
    public static final String OAUTH_ISSUER_DOC = "The authorization server whose access tokens (JWT) the gateway "
            + "accepts: its issuer URL (iss), e.g. the org's OpenID provider, https (http only on loopback). Named in "
            + "the Protected Resource Metadata. Blank: static tokens only.";
    public static final String OAUTH_RESOURCE_CONFIG = OAUTH_PREFIX + "resource";
    public static final String OAUTH_RESOURCE_DOC = "The gateway's canonical resource URI (RFC 8707), the URL "
            + "clients use, e.g. https://mcp.acme.example/mcp: tokens must name it in aud. Blank: "
            + "http://HOST:PORT/mcp of the bind address (a loopback one only).";
    public static final String OAUTH_JWKS_URL_CONFIG = OAUTH_PREFIX + "jwks.url";
    public static final String OAUTH_JWKS_URL_DOC = "The issuer's JWKS. Blank: jwks_uri of the issuer's metadata "
            + "(/.well-known/openid-configuration, else /.well-known/oauth-authorization-server), read at start.";
    public static final String OAUTH_SCOPES_CONFIG = OAUTH_PREFIX + "scopes";
    public static final String OAUTH_SCOPES_DOC = "Scopes every token must carry (space or comma list, in its scope "
            + "or scp claim); advertised as scopes_supported. Blank: none required.";
    public static final String OAUTH_ALGORITHMS_CONFIG = OAUTH_PREFIX + "algorithms";
    public static final String OAUTH_ALGORITHMS_DOC = "JWS algorithms accepted (comma list; asymmetric only: none "
            + "and HS* are refused).";
    public static final String DEFAULT_OAUTH_ALGORITHMS = "RS256,RS384,RS512,PS256,PS384,PS512,ES256,ES384,ES512";
    public static final String OAUTH_CLOCK_SKEW_MS_CONFIG = OAUTH_PREFIX + "clock.skew.ms";
    public static final String OAUTH_CLOCK_SKEW_MS_DOC = "Tolerance for exp, nbf and iat against this clock.";
    public static final String OAUTH_PRINCIPAL_CLAIM_CONFIG = OAUTH_PREFIX + "principal.claim";
    public static final String OAUTH_PRINCIPAL_CLAIM_DOC = "Claim holding the proposal's principal_id.";
    public static final String OAUTH_ORG_CLAIM_CONFIG = OAUTH_PREFIX + "org.claim";
    public static final String OAUTH_ORG_CLAIM_DOC = "Claim holding the host's org ([A-Za-z0-9._@-]{1,128}).";
    public static final String OAUTH_PROFILE_CLAIM_CONFIG = OAUTH_PREFIX + "profile.claim";
    public static final String OAUTH_PROFILE_CLAIM_DOC = "Claim holding the host's profile (its grant), "
            + "[A-Za-z0-9._@-]{1,128}.";
    public static final String OAUTH_DEFAULT_PROFILE_CONFIG = OAUTH_PREFIX + "default.profile";
    public static final String OAUTH_DEFAULT_PROFILE_DOC = "The profile of a token without the profile claim. "
            + "Blank: such a token is refused.";
    public static final String OAUTH_ORGS_CONFIG = OAUTH_PREFIX + "orgs";
    public static final String OAUTH_ORGS_DOC = "Orgs whose tokens are accepted (comma list). Blank: any org the "
            + "issuer names (each still only under its own tasks).";
    public static final String OAUTH_TASK_CLAIM_CONFIG = OAUTH_PREFIX + "task.claim";
    public static final String OAUTH_TASK_CLAIM_DOC = "Claim naming the task of the token's calls (when the request "
            + "has no X-ActionGate-Task-Id header). Blank: none; the session task is used.";

    /** The settings of one upstream, {@code mcp.gateway.upstream.NAME.SETTING}. */
    public static final String UPSTREAM_URL = "url";
    public static final String UPSTREAM_URL_DOC = "Base URL of the upstream MCP server, e.g. http://notes:3000.";
    public static final String UPSTREAM_ENDPOINT = "endpoint";
    public static final String UPSTREAM_ENDPOINT_DOC = "Its Streamable HTTP endpoint path.";
    public static final String UPSTREAM_PROVIDER = "provider";
    public static final String UPSTREAM_PROVIDER_DOC = "The actiongate provider (connector) whose policy and executor "
            + "cover its tools; mcp runs them on the upstream itself, as operations NAME/TOOL.";
    public static final String UPSTREAM_OPERATIONS = "operations";
    public static final String UPSTREAM_OPERATIONS_DOC = "Another provider only: tool:operation,..., the provider "
            + "operation that runs a tool (default: the tool's name).";
    public static final String UPSTREAM_CREDENTIAL = "credential";
    public static final String UPSTREAM_CREDENTIAL_DOC = "Secret reference (env:NAME, file:PATH) sent as "
            + "Authorization: Bearer ... on the gateway's own calls (tool list, trusted reads); the executor's is "
            + "connectors.mcp.upstream.NAME.credential.";

    public static final ConfigDef CONFIG_DEF = new ConfigDef()
            .define(BOOTSTRAP_SERVERS_CONFIG, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, Importance.HIGH,
                    BOOTSTRAP_SERVERS_DOC)
            .define(TOPIC_PREFIX_CONFIG, Type.STRING, "actiongate.", Importance.MEDIUM, TOPIC_PREFIX_DOC)
            .define(HOST_CONFIG, Type.STRING, "0.0.0.0", Importance.MEDIUM, HOST_DOC)
            .define(PORT_CONFIG, Type.INT, 8090, ConfigDef.Range.between(0, 65_535), Importance.MEDIUM, PORT_DOC)
            .define(TOKENS_FILE_CONFIG, Type.STRING, "", Importance.HIGH, TOKENS_FILE_DOC)
            .define(REVIEW_URL_CONFIG, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, Importance.HIGH, REVIEW_URL_DOC)
            .define(ANSWER_TIMEOUT_MS_CONFIG, Type.LONG, 5_000L, ConfigDef.Range.atLeast(1), Importance.MEDIUM,
                    ANSWER_TIMEOUT_MS_DOC)
            .define(UPSTREAMS_CONFIG, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, Importance.HIGH, UPSTREAMS_DOC)
            .define(SESSION_TASK_CONFIG, Type.STRING, DEFAULT_SESSION_TASK, Importance.MEDIUM, SESSION_TASK_DOC)
            .define(APPROVAL_WAIT_MS_CONFIG, Type.LONG, DEFAULT_APPROVAL_WAIT_MS, ConfigDef.Range.between(1, 3_600_000),
                    Importance.MEDIUM, APPROVAL_WAIT_MS_DOC)
            .define(APPROVAL_PROGRESS_MS_CONFIG, Type.LONG, DEFAULT_APPROVAL_PROGRESS_MS,
                    ConfigDef.Range.between(1_000, 3_600_000), Importance.LOW, APPROVAL_PROGRESS_MS_DOC)
            .define(APPROVAL_MAX_WAITING_CONFIG, Type.INT, DEFAULT_APPROVAL_MAX_WAITING, ConfigDef.Range.atLeast(0),
                    Importance.LOW, APPROVAL_MAX_WAITING_DOC)
            .define(OAUTH_ISSUER_CONFIG, Type.STRING, "", Importance.HIGH, OAUTH_ISSUER_DOC)
            .define(OAUTH_RESOURCE_CONFIG, Type.STRING, "", Importance.HIGH, OAUTH_RESOURCE_DOC)
            .define(OAUTH_JWKS_URL_CONFIG, Type.STRING, "", Importance.MEDIUM, OAUTH_JWKS_URL_DOC)
            .define(OAUTH_SCOPES_CONFIG, Type.STRING, "", Importance.MEDIUM, OAUTH_SCOPES_DOC)
            .define(OAUTH_ALGORITHMS_CONFIG, Type.STRING, DEFAULT_OAUTH_ALGORITHMS, Importance.LOW,
                    OAUTH_ALGORITHMS_DOC)
            .define(OAUTH_CLOCK_SKEW_MS_CONFIG, Type.LONG, 60_000L, ConfigDef.Range.between(0, 300_000), Importance.LOW,
                    OAUTH_CLOCK_SKEW_MS_DOC)
            .define(OAUTH_PRINCIPAL_CLAIM_CONFIG, Type.STRING, "sub", Importance.MEDIUM, OAUTH_PRINCIPAL_CLAIM_DOC)
            .define(OAUTH_ORG_CLAIM_CONFIG, Type.STRING, "org", Importance.MEDIUM, OAUTH_ORG_CLAIM_DOC)
            .define(OAUTH_PROFILE_CLAIM_CONFIG, Type.STRING, "actiongate_profile", Importance.MEDIUM,
                    OAUTH_PROFILE_CLAIM_DOC)
            .define(OAUTH_DEFAULT_PROFILE_CONFIG, Type.STRING, "", Importance.MEDIUM, OAUTH_DEFAULT_PROFILE_DOC)
            .define(OAUTH_ORGS_CONFIG, Type.STRING, "", Importance.MEDIUM, OAUTH_ORGS_DOC)
            .define(OAUTH_TASK_CLAIM_CONFIG, Type.STRING, "", Importance.LOW, OAUTH_TASK_CLAIM_DOC);

    /** The keys of one upstream, without their {@code mcp.gateway.upstream.NAME.} prefix. */
    public static final ConfigDef UPSTREAM_DEF = new ConfigDef()
            .define(UPSTREAM_URL, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, Importance.HIGH, UPSTREAM_URL_DOC)
            .define(UPSTREAM_ENDPOINT, Type.STRING, "/mcp", Importance.LOW, UPSTREAM_ENDPOINT_DOC)
            .define(UPSTREAM_PROVIDER, Type.STRING, MCP_PROVIDER, Importance.MEDIUM, UPSTREAM_PROVIDER_DOC)
            .define(UPSTREAM_OPERATIONS, Type.STRING, "", Importance.LOW, UPSTREAM_OPERATIONS_DOC)
            .define(UPSTREAM_CREDENTIAL, Type.STRING, "", Importance.MEDIUM, UPSTREAM_CREDENTIAL_DOC);

    /** {@link #UPSTREAM_DEF} under {@code mcp.gateway.upstream.<name>.}, for the configuration reference. */
    public static final ConfigDef NAMED_KEYS_DEF = ConfigDefs.prefixed(UPSTREAM_PREFIX + "<name>.",
            UPSTREAM_DEF);
    /** An upstream's name: also the first half of its tools' operations ({@code NAME/TOOL}). */
    static final java.util.regex.Pattern UPSTREAM_NAME = java.util.regex.Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");


    /**
     * One upstream MCP server: {@code mcp.gateway.upstream.NAME.url}, {@code .endpoint}, {@code .provider} (default
     * {@code mcp}: approved calls run on the upstream's own tool, operation {@code NAME/TOOL}) and, for any other
     * provider only, {@code .operations} ({@code tool:operation,...}: the provider operation that runs a tool;
     * default the tool's own name).
     */
    public record UpstreamConfig(String name, String url, String endpoint, String provider,
            Map<String, String> operations, String credential) {

        public UpstreamConfig {
            operations = Map.copyOf(operations);
        }

        public String operation(String tool) {
            return operation(name, provider, operations, tool);
        }

        static String operation(String name, String provider, Map<String, String> operations, String tool) {
            return MCP_PROVIDER.equals(provider) ? name + "/" + tool : operations.getOrDefault(tool, tool);
        }
    }

    /** Reads the configuration; throws {@link IllegalArgumentException} naming the first bad key. */
    public static GatewayConfig from(Map<String, String> config) {
        Map<String, Object> v = ConfigDefs.parse(CONFIG_DEF, config);
        List<UpstreamConfig> upstreams = new ArrayList<>();
        for (String name : ((String) v.get(UPSTREAMS_CONFIG)).split(",")) {
            String n = name.strip();
            if (n.isEmpty()) {
                continue;
            }
            if (!UPSTREAM_NAME.matcher(n).matches()) {
                throw new IllegalArgumentException(UPSTREAMS_CONFIG + ": '" + n + "' is not an upstream name ("
                        + UPSTREAM_NAME.pattern() + ")");
            }
            String p = UPSTREAM_PREFIX + n + ".";
            Map<String, Object> u = ConfigDefs.parse(ConfigDefs.prefixed(p, UPSTREAM_DEF), config);
            String provider = (String) u.get(p + UPSTREAM_PROVIDER);
            Map<String, String> operations = operations(p + UPSTREAM_OPERATIONS,
                    (String) u.get(p + UPSTREAM_OPERATIONS));
            if (MCP_PROVIDER.equals(provider) && !operations.isEmpty()) {
                throw new IllegalArgumentException(p + UPSTREAM_OPERATIONS + ": the tools of an mcp upstream "
                        + "are their own operations (" + n + "/TOOL); map operations only for another provider");
            }
            upstreams.add(new UpstreamConfig(n, (String) u.get(p + UPSTREAM_URL), (String) u.get(p + UPSTREAM_ENDPOINT),
                    provider, operations, credential(p + UPSTREAM_CREDENTIAL, (String) u.get(p + UPSTREAM_CREDENTIAL))));
        }
        if (upstreams.isEmpty()) {
            throw new IllegalArgumentException(UPSTREAMS_CONFIG + ": name at least one upstream MCP server");
        }
        String tokens = ((String) v.get(TOKENS_FILE_CONFIG)).strip();
        OAuthSettings oauth = OAuthSettings.from(v);
        if (tokens.isEmpty() && oauth == null) {
            throw new IllegalArgumentException(TOKENS_FILE_CONFIG + " or " + OAUTH_ISSUER_CONFIG
                    + ": set at least one, or no host can authenticate");
        }
        String sessionTask = ((String) v.get(SESSION_TASK_CONFIG)).strip();
        sessionTask = sessionTask.equals(NO_SESSION_TASK) ? "" : sessionTask;
        if (!sessionTask.isEmpty() && !ActionKey.isValidId(sessionTask.replace("{org_id}", "org"))) {
            throw new IllegalArgumentException(SESSION_TASK_CONFIG + ": '" + sessionTask + "' is not a task id with "
                    + "an optional {org_id} (" + ContractLimits.ID_PATTERN.pattern() + ")");
        }
        return new GatewayConfig((String) v.get(BOOTSTRAP_SERVERS_CONFIG), (String) v.get(TOPIC_PREFIX_CONFIG),
                (String) v.get(HOST_CONFIG), (Integer) v.get(PORT_CONFIG),
                tokens.isEmpty() ? null : Path.of(tokens), (String) v.get(REVIEW_URL_CONFIG),
                Duration.ofMillis((Long) v.get(ANSWER_TIMEOUT_MS_CONFIG)), upstreams, KafkaClientSettings.from(config),
                TaskOwnership.defaultOrg(config), oauth, sessionTask,
                Duration.ofMillis((Long) v.get(APPROVAL_WAIT_MS_CONFIG)),
                Duration.ofMillis((Long) v.get(APPROVAL_PROGRESS_MS_CONFIG)), (Integer) v.get(APPROVAL_MAX_WAITING_CONFIG));
    }

    private static String credential(String key, String value) {
        return SecretReference.requireReference(key, value);
    }

    private static Map<String, String> operations(String key, String value) {
        Map<String, String> operations = new java.util.LinkedHashMap<>();
        if (value == null || value.isBlank()) {
            return operations;
        }
        for (String pair : value.split(",")) {
            String[] parts = pair.strip().split(":");
            if (parts.length != 2 || parts[0].isBlank() || parts[1].isBlank()) {
                throw new IllegalArgumentException(key + ": expected tool:operation[,tool:operation...]");
            }
            operations.put(parts[0].strip(), parts[1].strip());
        }
        return operations;
    }
}
