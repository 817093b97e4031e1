package io.actiongate.connector.mcp;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.actiongate.connector.internal.Json;
import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.DispatchRequest;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.ErrorCodes;
import io.actiongate.connector.spi.LookupRequest;
import io.actiongate.connector.spi.LookupResult;
import io.actiongate.connector.spi.OperationClassifier;
import io.actiongate.connector.spi.Tracing;
import io.actiongate.connector.spi.Validation;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.json.schema.jackson2.DefaultJsonSchemaValidator;
import io.modelcontextprotocol.spec.McpSchema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Runs an approved call of an upstream MCP server's own tool, once, over Streamable HTTP (the MCP Java SDK's client),
 * and asks the upstream's status tool about unknown outcomes. Each dispatch opens its own session (initialize, read
 * the tool list), checks the frozen input against the tool's live input schema, then sends one {@code tools/call}
 * with the input in the wrapper of docs/contract.md ("MCP dispatch wrapper"). Outcomes in {@link McpOutcomes}.
 */
final class McpConnector implements Connector {

    private static final Logger LOG = LoggerFactory.getLogger(McpConnector.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() { };

    /** The {@code _meta} members every dispatch carries, in both wrapper modes. */
    static final String META_IDEMPOTENCY_KEY = "actiongate/idempotency_key";
    static final String META_ACTION_KEY = "actiongate/action_key";
    /** The status tool's one argument. */
    static final String STATUS_ARGUMENT = "idempotency_key";

    private final McpSettings settings;
    private final McpClassifier classifier;
    private final JsonSchemaValidator validator = new DefaultJsonSchemaValidator();
    private final McpOutcomes outcomes;

    McpConnector(McpSettings settings) {
        this.settings = settings;
        this.classifier = new McpClassifier(settings);
        List<String> secrets = new ArrayList<>();
        settings.upstreams().values().stream().map(McpSettings.UpstreamSettings::credential)
                .filter(Objects::nonNull).forEach(secrets::add);
        this.outcomes = new McpOutcomes(validator, secrets);
    }

    @Override
    public String provider() {
        return McpConnectorFactory.PROVIDER;
    }

    @Override
    public OperationClassifier classifier() {
        return classifier;
    }

    @Override
    public DispatchResult dispatch(DispatchRequest request) {
        DispatchResult result = dispatchOnce(request);
        LOG.info("mcp dispatch action={} attempt={} operation={} status={} error={}", request.actionKey(),
                request.attempt(), request.operation(), result.status(), result.errorCode());
        return result;
    }

    private DispatchResult dispatchOnce(DispatchRequest request) {
        if (!classifier.classify(request.operation(), request.inputJson()).isAllowed()) {
            return DispatchResult.refusedBeforeSending(ErrorCodes.OPERATION_REFUSED,
                    "not a tool of a configured upstream MCP server");
        }
        Validation validation = classifier.validate(request.operation(), request.inputJson());
        if (!validation.valid()) {
            return DispatchResult.refusedBeforeSending(ErrorCodes.SCHEMA_INVALID, validation.violation());
        }
        if (!request.attachments().isEmpty()) {
            return DispatchResult.refusedBeforeSending(ErrorCodes.ATTACHMENT_INVALID,
                    "MCP tools take no attachments");
        }
        McpClassifier.Operation op = McpClassifier.Operation.parse(request.operation()).orElseThrow();
        McpSettings.UpstreamSettings upstream = settings.upstream(op.upstream()).orElseThrow();
        Map<String, Object> input;
        try {
            input = JSON.readValue(request.inputJson(), MAP);
        } catch (Exception e) {
            return DispatchResult.refusedBeforeSending(ErrorCodes.SCHEMA_INVALID, "the input is not a JSON object");
        }
        boolean sent = false;
        try (Session session = open(upstream, request.actionKey(), request.idempotencyKey())) {
            Optional<McpSchema.Tool> tool = session.tool(op.tool());
            if (tool.isEmpty()) {
                return DispatchResult.refusedBeforeSending(ErrorCodes.OPERATION_REFUSED,
                        "the upstream MCP server no longer offers the tool");
            }
            Map<String, Object> inputSchema = tool.get().inputSchema();
            if (inputSchema != null && !inputSchema.isEmpty()) {
                JsonSchemaValidator.ValidationResponse valid = validator.validate(inputSchema, input);
                if (!valid.valid()) {
                    return DispatchResult.refusedBeforeSending(ErrorCodes.SCHEMA_INVALID,
                            "the input does not validate against the tool's input schema");
                }
            }
            McpSchema.CallToolRequest call = McpSchema.CallToolRequest.builder(op.tool())
                    .arguments(arguments(upstream.wrapper(), input, request))
                    .meta(meta(request))
                    .build();
            sent = true; // from here on any byte of the call may reach the upstream
            McpSchema.CallToolResult answer = session.client().callTool(call);
            return outcomes.forResult(answer, tool.get().outputSchema(), upstream.successMember());
        } catch (RuntimeException e) {
            return outcomes.forFailure(e, sent);
        }
    }

    /** The tool's arguments: the documented wrapper, or (for {@code plain} upstreams) the input as it is. */
    static Map<String, Object> arguments(McpSettings.Wrapper wrapper, Map<String, Object> input,
            DispatchRequest request) {
        if (wrapper == McpSettings.Wrapper.PLAIN) {
            return input;
        }
        Map<String, Object> actiongate = new LinkedHashMap<>();
        actiongate.put("action_key", request.actionKey());
        actiongate.put("idempotency_key", request.idempotencyKey());
        actiongate.put("attempt", request.attempt());
        actiongate.put("action_digest", request.actionDigest());
        actiongate.put("decision_id", request.decisionId());
        actiongate.put("approved_by", request.approvedBy());
        actiongate.put("summary", request.summary());
        Map<String, Object> wrapped = new LinkedHashMap<>();
        wrapped.put("input", input);
        wrapped.put("actiongate", actiongate);
        return wrapped;
    }

    private static Map<String, Object> meta(DispatchRequest request) {
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put(META_IDEMPOTENCY_KEY, request.idempotencyKey());
        meta.put(META_ACTION_KEY, request.actionKey());
        return meta;
    }

    @Override
    public LookupResult lookup(LookupRequest request) {
        LookupResult result = lookupOnce(request);
        LOG.info("mcp lookup action={} verdict={}", request.actionKey(), result.verdict());
        return result;
    }

    private LookupResult lookupOnce(LookupRequest request) {
        if (request.idempotencyKey() == null || request.idempotencyKey().isEmpty()) {
            return LookupResult.stillUnknown("no idempotency key to look up");
        }
        Optional<McpClassifier.Operation> op = McpClassifier.Operation.parse(request.operation());
        Optional<McpSettings.UpstreamSettings> upstream = op.flatMap(o -> settings.upstream(o.upstream()));
        if (upstream.isEmpty()) {
            return LookupResult.stillUnknown("not a tool of a configured upstream MCP server");
        }
        String statusTool = upstream.get().statusTool();
        if (statusTool == null) {
            return LookupResult.stillUnknown("upstream " + upstream.get().name()
                    + " has no status tool: the owner decides");
        }
        try (Session session = open(upstream.get(), request.actionKey(), request.idempotencyKey())) {
            McpSchema.CallToolResult answer = session.client().callTool(McpSchema.CallToolRequest.builder(statusTool)
                    .arguments(Map.of(STATUS_ARGUMENT, request.idempotencyKey())).build());
            return outcomes.forStatus(answer, upstream.get().successMember());
        } catch (RuntimeException e) {
            return LookupResult.stillUnknown("the status tool was not answered: " + e.getClass().getSimpleName());
        }
    }

    private Session open(McpSettings.UpstreamSettings upstream, String actionKey, String idempotencyKey) {
        HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport
                .builder(upstream.url().toString())
                .endpoint(upstream.endpoint())
                .jsonMapper(new JacksonMcpJsonMapper(Json.MAPPER))
                .connectTimeout(upstream.connectTimeout())
                .addHttpRequestCustomizer((builder, method, uri, body, context) -> {
                    if (upstream.credential() != null) {
                        builder.header("Authorization", "Bearer " + upstream.credential());
                    }
                    builder.header("X-ActionGate-Action", actionKey);
                    builder.header("Idempotency-Key", idempotencyKey);
                    Tracing.injectCurrent(builder::header);
                })
                .build();
        McpSyncClient client = McpClient.sync(transport)
                .requestTimeout(upstream.responseTimeout())
                .initializationTimeout(upstream.responseTimeout())
                .clientInfo(McpSchema.Implementation.builder("actiongate-executor", "1").build())
                .enableCallToolSchemaCaching(false)
                .build();
        Session session = new Session(client);
        try {
            client.initialize();
            return session;
        } catch (RuntimeException e) {
            session.close();
            throw e;
        }
    }

    /** One MCP session with an upstream, closed after one call. */
    private record Session(McpSyncClient client) implements AutoCloseable {

        Optional<McpSchema.Tool> tool(String name) {
            return client.listTools().tools().stream().filter(t -> name.equals(t.name())).findFirst();
        }

        @Override
        public void close() {
            try {
                client.closeGracefully();
            } catch (RuntimeException e) {
                LOG.debug("closing an MCP session failed: {}", e.getClass().getSimpleName());
            }
        }
    }
}
