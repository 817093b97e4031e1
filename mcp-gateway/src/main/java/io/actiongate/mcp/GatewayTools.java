package io.actiongate.mcp;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;

import io.actiongate.avro.ToolDescriptor;
import io.actiongate.client.ActionGateClient;
import io.actiongate.client.ActionReceipt;
import io.actiongate.client.IdentityConflictException;
import io.actiongate.client.InvalidProposalException;
import io.actiongate.client.ProposalHandle;
import io.actiongate.client.ProposalRequest;
import io.actiongate.client.ReceiptState;
import io.actiongate.client.ReceiptTimeoutException;
import io.actiongate.client.Until;
import io.actiongate.contract.ContractLimits;
import io.actiongate.key.ActionKey;
import io.actiongate.policy.PolicyTopicReader;
import io.actiongate.policy.TrustedRead;

/**
 * The gateway's tools: every upstream tool under its own name. A call is either a trusted read (the operator
 * imported the tool as {@code read_only_hint=true}, approval {@code NONE}, and its schema is unchanged), passed
 * straight upstream with its result marked as data, or a proposal to the gate, answered at once with the action's
 * current state. The upstream's own annotations never decide anything. A proposal is made only under a task of the
 * host's own org (the header, the token or the org's session task names it: {@link CallIdentity}); any other task is
 * refused here, before anything reaches the gate. A call waiting for a person asks a client that can open URLs to
 * open the review page and waits for the outcome ({@link ClientApproval}).
 */
final class GatewayTools {

    static final String CALL_ID_META = "tool_call_id";
    static final String DATA_META = "actiongate/data";
    static final String CONTEXT_IDENTITY = "identity";
    static final String CONTEXT_TASK = "task";
    static final String CONTEXT_TOKEN_TASK = "token-task";
    /** Ends the description of every gated tool: the model reads it before it calls (docs/contract.md section 6). */
    static final String REVIEW_NOTE = "Runs only after a person approves this exact call on actiongate's review page; "
            + "until then the call answers its state (WAITING_APPROVAL with a review_url).";
    /** The reason code of a conflict answer: the call id already names a different call (an IdentityConflict). */
    static final String IDENTITY_CONFLICT = "IDENTITY_CONFLICT";
    /** Answers that say the action will not run: {@code isError: true}. */
    private static final java.util.Set<String> REFUSED_STATES = java.util.Set.of("REJECTED", "DENIED", "EXPIRED",
            "CANCELLED", "FAILED");
    /** Where a gated tool's listing keeps the upstream's own {@code outputSchema}. */
    static final String UPSTREAM_OUTPUT_META = "actiongate/upstream_output_schema";
    /**
     * What a gated tool answers: the action's state (docs/contract.md, "MCP gateway answers"). Only {@code state} is
     * always present; {@code additionalProperties} stays open so a later member never breaks a validating client.
     */
    static final Map<String, Object> STATE_SCHEMA = Map.of("type", "object", "required", List.of("state"),
            "properties", Map.of(
                    "state", Map.of("type", "string"),
                    "action_key", Map.of("type", "string"),
                    "action_digest", Map.of("type", "string"),
                    "reason_code", Map.of("type", "string"),
                    "review_url", Map.of("type", "string"),
                    "provider_receipt_id", Map.of("type", "string"),
                    "decision_id", Map.of("type", "string"),
                    "attempts", Map.of("type", "integer"),
                    "detail", Map.of("type", "string")));

    private static final Logger LOG = LoggerFactory.getLogger(GatewayTools.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The JSON-RPC error code of a refused read (the request's parameters were refused). */
    static final int READ_REFUSED_CODE = McpSchema.ErrorCodes.INVALID_PARAMS;

    private final ActionGateClient client;
    private final PolicyTopicReader policy;
    private final String reviewUrl;
    private final Duration answerTimeout;
    private final ReadChecks reads;
    private final GatewayMetrics metrics;
    private final String sessionTask;
    private final ClientApproval approvals;

    /**
     * @param sessionTask the task of a call whose request names none ({@code mcp.gateway.session.task}), empty for none
     * @param approvals   asks clients with URL elicitation to open the review page
     */
    GatewayTools(ActionGateClient client, PolicyTopicReader policy, String reviewUrl, Duration answerTimeout,
            GatewayMetrics metrics, String sessionTask, ClientApproval approvals) {
        this.client = client;
        this.policy = policy;
        this.reviewUrl = reviewUrl;
        this.answerTimeout = answerTimeout;
        this.reads = new ReadChecks(policy);
        this.metrics = metrics;
        this.sessionTask = sessionTask;
        this.approvals = approvals;
    }

    /** A refused read: a JSON-RPC error whose data names the reason code; nothing reached the upstream. */
    static McpError readRefused(ReadChecks.Refusal refusal) {
        return McpError.builder(READ_REFUSED_CODE)
                .message("read refused: " + refusal.code().name() + " (" + refusal.reason() + ")")
                .data(Map.of("reason_code", refusal.code().name(), "reason", refusal.reason()))
                .build();
    }

    List<McpServerFeatures.SyncToolSpecification> specifications(List<Upstream> upstreams) {
        Map<String, McpServerFeatures.SyncToolSpecification> specs = new LinkedHashMap<>();
        for (Upstream upstream : upstreams) {
            for (McpSchema.Tool tool : upstream.tools()) {
                if (specs.containsKey(tool.name())) {
                    throw new IllegalStateException("tool " + tool.name() + " is offered by two upstreams");
                }
                specs.put(tool.name(), McpServerFeatures.SyncToolSpecification.builder()
                        .tool(advertised(upstream, tool))
                        .callHandler((exchange, request) -> call(upstream, tool, exchange, request))
                        .build());
            }
        }
        return new ArrayList<>(specs.values());
    }

    /**
     * The tool as the gateway offers it: a trusted read (as the policy says at start) answers the upstream's own
     * result, so it keeps the upstream's {@code outputSchema}; every other tool answers the gateway's state object,
     * so it advertises {@link #STATE_SCHEMA} instead, and an MCP client that validates results can read every
     * answer. The upstream's own {@code outputSchema} is kept in {@code _meta} under {@link #UPSTREAM_OUTPUT_META},
     * and its description ends with {@link #REVIEW_NOTE}.
     */
    McpSchema.Tool advertised(Upstream upstream, McpSchema.Tool tool) {
        boolean trustedRead = policy.tool(upstream.provider(), tool.name())
                .map(t -> TrustedRead.byDescriptor(t, Upstream.schemaHash(tool))).orElse(false);
        if (trustedRead) {
            return tool;
        }
        Map<String, Object> meta = new LinkedHashMap<>();
        if (tool.meta() != null) {
            meta.putAll(tool.meta());
        }
        if (tool.outputSchema() != null) {
            meta.put(UPSTREAM_OUTPUT_META, tool.outputSchema());
        }
        String description = tool.description() == null || tool.description().isBlank() ? REVIEW_NOTE
                : tool.description().strip() + "\n\n" + REVIEW_NOTE;
        return new McpSchema.Tool(tool.name(), tool.title(), description, tool.inputSchema(), STATE_SCHEMA,
                tool.annotations(), meta.isEmpty() ? null : meta, tool.icons());
    }

    McpSchema.CallToolResult call(Upstream upstream, McpSchema.Tool tool, McpSyncServerExchange exchange,
            McpSchema.CallToolRequest request) {
        McpTransportContext context = exchange.transportContext();
        if (!(context.get(CONTEXT_IDENTITY) instanceof HostIdentity identity)) {
            return error("not authenticated");
        }
        Map<String, Object> arguments = request.arguments() == null ? Map.of() : request.arguments();
        String schemaHash = Upstream.schemaHash(tool);
        // a read passes straight through only with the operator's trust and the host's own grant; anything less
        // goes to the gate, which says why (PROFILE_NOT_GRANTED, INTEGRATION_DISABLED, ...)
        Optional<ToolDescriptor> trusted = policy.tool(upstream.provider(), tool.name())
                .filter(t -> TrustedRead.byDescriptor(t, schemaHash));
        boolean trustedRead = trusted.isPresent()
                && policy.allows(identity.orgId(), identity.profileId(), upstream.provider(), tool.name());
        CallIdentity.Task task = CallIdentity.task(identity, context.get(CONTEXT_TASK), context.get(CONTEXT_TOKEN_TASK),
                sessionTask);
        if (trustedRead) {
            Optional<ReadChecks.Refusal> refused = reads.check(identity, task.taskId(), trusted.get(), arguments);
            if (refused.isPresent()) {
                metrics.call(tool.name(), "read_refused");
                LOG.info("read of {} refused: {}", tool.name(), refused.get().code());
                throw readRefused(refused.get());
            }
            long started = System.nanoTime();
            McpSchema.CallToolResult answer;
            try {
                answer = upstream.call(tool.name(), arguments);
            } catch (RuntimeException e) {
                metrics.upstream(upstream.name(), started, false);
                metrics.call(tool.name(), "read_failed");
                LOG.info("read of {} from {} failed: {}", tool.name(), upstream.name(), e.getClass().getSimpleName());
                throw McpError.builder(McpSchema.ErrorCodes.INTERNAL_ERROR)
                        .message("the upstream MCP server did not answer the read").build();
            }
            metrics.upstream(upstream.name(), started, true);
            metrics.call(tool.name(), Boolean.TRUE.equals(answer.isError()) ? "read_error" : "read");
            return asData(answer);
        }
        String taskId = task.taskId();
        if (taskId == null || !ActionKey.isValidId(taskId)) {
            return error("this tool needs approval under a task: name it in the " + BearerAuthFilter.TASK_HEADER
                    + " header (" + ContractLimits.ID_PATTERN.pattern() + "), or let the token or "
                    + GatewayConfig.SESSION_TASK_CONFIG + " name it");
        }
        if (!policy.ownsTask(identity.orgId(), taskId)) {
            // said the same way for a task of another org and an unknown one: the header reveals nothing
            LOG.info("refused a call of host {} (org {}) under a task that is not its org's", identity.principalId(),
                    identity.orgId());
            return error("the session's task is not a task of this host's org; nothing was proposed"
                    + (task.source() == CallIdentity.TaskSource.SESSION_TASK ? " (the org's session task, "
                    + GatewayConfig.SESSION_TASK_CONFIG + ": create it with org_id " + identity.orgId() + ")" : ""));
        }
        String callId = CallIdentity.callId(identity, task, exchange.sessionId(), tool.name(), arguments,
                request.meta());
        if (!ActionKey.isValidId(callId)) {
            return error("_meta." + CALL_ID_META + " must match " + ContractLimits.ID_PATTERN.pattern());
        }
        return propose(upstream, tool, schemaHash, identity, taskId, callId, arguments, exchange,
                request.progressToken());
    }

    private McpSchema.CallToolResult propose(Upstream upstream, McpSchema.Tool tool, String schemaHash,
            HostIdentity identity, String taskId, String callId, Map<String, Object> arguments,
            McpSyncServerExchange exchange, Object progressToken) {
        ProposalRequest request = ProposalRequest.builder()
                .action(taskId, callId)
                // absent policy proposes 0, which the gate rejects (TASK_VERSION_CHANGED, AUTHORIZATION_EPOCH_CHANGED)
                .taskVersion(policy.taskVersion(taskId).orElse(0))
                .authorizationEpoch(policy.epoch(identity.orgId()).orElse(0))
                .identity(identity.orgId(), identity.principalId())
                .profile(identity.profileId())
                .tool(upstream.provider(), upstream.operation(tool.name()), tool.name(), schemaHash)
                .input(JSON.valueToTree(arguments))
                .summary(summary(upstream, tool))
                .claimedAnnotations(claimed(tool.annotations()))
                .build();
        ProposalHandle handle;
        try {
            handle = client.propose(request, Until.ANY, answerTimeout);
        } catch (InvalidProposalException e) {
            return error(e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return error("interrupted");
        }
        ObjectNode state = JSON.createObjectNode();
        state.put("action_key", handle.actionKey());
        state.put("action_digest", handle.actionDigest());
        try {
            ActionReceipt receipt = handle.await();
            describe(state, receipt);
            Optional<ClientApproval.Outcome> through = approvals.await(exchange, request, receipt,
                    reviewUrl(handle.actionKey()), tool.name(), progressToken);
            through.ifPresent(outcome -> {
                if (outcome.receipt() != null) {
                    state.remove("review_url");
                    describe(state, outcome.receipt());
                }
                if (outcome.detail() != null) {
                    state.put("detail", outcome.detail());
                }
            });
        } catch (IdentityConflictException e) {
            LOG.info("identity conflict on {}", handle.actionKey());
            metrics.call(tool.name(), "conflict");
            state.put("state", "REJECTED");
            state.put("reason_code", IDENTITY_CONFLICT);
            state.put("detail", "proposal refused: identity conflict: tool call id " + callId + " of task " + taskId
                    + " already names a different call; this proposal was published and refused, nothing of it runs");
            return structured(state, true);
        } catch (ReceiptTimeoutException e) {
            state.put("state", "PROPOSED");
            state.put("detail", "the gate has not answered yet; call again (the same tool, arguments and _meta, "
                    + "in this session)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return error("interrupted");
        }
        String settled = state.path("state").asText();
        metrics.call(tool.name(), settled.toLowerCase(java.util.Locale.ROOT));
        boolean refused = REFUSED_STATES.contains(settled);
        if (refused) {
            String code = state.path("reason_code").asText("");
            state.put("detail", switch (settled) {
                case "REJECTED" -> "proposal refused: " + code;
                case "DENIED" -> "the approver denied the action" + (code.isEmpty() ? "" : ": " + code);
                case "EXPIRED" -> "the action was not approved in time" + (code.isEmpty() ? "" : ": " + code);
                case "CANCELLED" -> "the action was cancelled" + (code.isEmpty() ? "" : ": " + code);
                default -> "the effect failed" + (code.isEmpty() ? "" : ": " + code);
            });
        }
        return structured(state, refused);
    }

    private void describe(ObjectNode state, ActionReceipt receipt) {
        state.put("state", receipt.state().name());
        receipt.reason().ifPresent(r -> state.put("reason_code", r));
        if (receipt.state() == ReceiptState.WAITING_APPROVAL) {
            state.put("review_url", reviewUrl(receipt.actionKey()));
        }
        if (receipt.providerReceiptId() != null) {
            state.put("provider_receipt_id", receipt.providerReceiptId());
        }
        if (receipt.decisionId() != null) {
            state.put("decision_id", receipt.decisionId());
        }
        state.put("attempts", receipt.attempts());
    }

    /**
     * The review page of {@code actionKey}: the configured URL with {@code {task_id}} and {@code {tool_call_id}} (the
     * approval service's {@code /review/{task_id}/{tool_call_id}}) or {@code {action_key}} filled in, or with an
     * {@code action} query parameter.
     */
    String reviewUrl(String actionKey) {
        String encoded = URLEncoder.encode(actionKey, StandardCharsets.UTF_8);
        if (reviewUrl.contains("{task_id}") || reviewUrl.contains("{tool_call_id}")) {
            // ids are of ContractLimits.ID_CHARACTERS (ActionKey.parse checks): each is a valid path character as is
            ActionKey key = ActionKey.parse(actionKey);
            return reviewUrl.replace("{task_id}", key.taskId()).replace("{tool_call_id}", key.toolCallId());
        }
        return reviewUrl.contains("{action_key}") ? reviewUrl.replace("{action_key}", encoded)
                : reviewUrl + (reviewUrl.contains("?") ? "&" : "?") + "action=" + encoded;
    }

    private static String summary(Upstream upstream, McpSchema.Tool tool) {
        String s = "Run the MCP tool " + tool.name() + " of " + upstream.name() + " with the input shown";
        int max = ContractLimits.SUMMARY_MAX_CHARS;
        return s.length() <= max ? s : s.substring(0, max);
    }

    private static Map<String, String> claimed(McpSchema.ToolAnnotations a) {
        if (a == null) {
            return null;
        }
        Map<String, String> m = new LinkedHashMap<>();
        Optional.ofNullable(a.readOnlyHint()).ifPresent(v -> m.put("read_only_hint", v.toString()));
        Optional.ofNullable(a.destructiveHint()).ifPresent(v -> m.put("destructive_hint", v.toString()));
        Optional.ofNullable(a.idempotentHint()).ifPresent(v -> m.put("idempotent_hint", v.toString()));
        Optional.ofNullable(a.openWorldHint()).ifPresent(v -> m.put("open_world_hint", v.toString()));
        return m.isEmpty() ? null : m;
    }

    /** The upstream's answer, marked as data: text the model reads, never an instruction to the gateway. */
    private static McpSchema.CallToolResult asData(McpSchema.CallToolResult upstream) {
        Map<String, Object> meta = new LinkedHashMap<>();
        if (upstream.meta() != null) {
            meta.putAll(upstream.meta());
        }
        meta.put(DATA_META, true);
        return new McpSchema.CallToolResult(upstream.content(), upstream.isError(), upstream.structuredContent(),
                meta);
    }

    private static McpSchema.CallToolResult error(String message) {
        ObjectNode state = JSON.createObjectNode();
        state.put("state", "ERROR");
        state.put("detail", message);
        return structured(state, true);
    }

    private static McpSchema.CallToolResult structured(ObjectNode state, boolean isError) {
        try {
            Map<String, Object> map = JSON.convertValue(state, JSON.getTypeFactory()
                    .constructMapType(LinkedHashMap.class, String.class, Object.class));
            return new McpSchema.CallToolResult(List.of(McpSchema.TextContent.builder(JSON.writeValueAsString(state)).build()),
                    isError, map, null);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
