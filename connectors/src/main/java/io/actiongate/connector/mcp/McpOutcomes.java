package io.actiongate.connector.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.actiongate.connector.internal.Json;
import io.actiongate.secrets.Redaction;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.ErrorCodes;
import io.actiongate.connector.spi.LookupResult;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;

import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/**
 * What an MCP answer means for the effect (docs/contract.md, "MCP upstreams"). Pure: every provider text that
 * leaves goes through {@link Redaction}.
 */
final class McpOutcomes {

    /** The documented form of a receipt id, as for the webhook protocol. */
    static final Pattern RECEIPT_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,127}");
    /** JSON-RPC errors that say the request was refused as such (malformed, no such method, bad params). */
    private static final List<Integer> REFUSED = List.of(-32600, -32601, -32602);

    private final JsonSchemaValidator validator;
    private final Collection<String> secrets;

    McpOutcomes(JsonSchemaValidator validator, Collection<String> secrets) {
        this.validator = validator;
        this.secrets = List.copyOf(secrets);
    }

    /**
     * The tool's answer: {@code isError: true} is {@code FAILED}/{@code PROVIDER_REJECTED}; otherwise {@code SUCCEEDED}
     * only when the answer passes the domain check: its {@code structuredContent} validates against the tool's
     * {@code outputSchema} (when it declares one) and carries the operator's {@code success-member} (when one is
     * configured). Anything else is {@code UNKNOWN}: the tool ran and said something we cannot read as done.
     */
    DispatchResult forResult(McpSchema.CallToolResult result, Map<String, Object> outputSchema, String successMember) {
        if (result == null) {
            return DispatchResult.unknown(null, ErrorCodes.UNEXPECTED_RESPONSE, "the upstream answered no result");
        }
        if (Boolean.TRUE.equals(result.isError())) {
            return DispatchResult.failed(null, ErrorCodes.PROVIDER_REJECTED,
                    "the tool answered isError: " + Redaction.snippet(text(result), Redaction.DEFAULT_SNIPPET, secrets));
        }
        Object structured = result.structuredContent();
        if (outputSchema != null && !outputSchema.isEmpty()) {
            if (structured == null) {
                return DispatchResult.unknown(null, ErrorCodes.UNEXPECTED_RESPONSE,
                        "the tool declares an outputSchema but answered no structuredContent");
            }
            JsonSchemaValidator.ValidationResponse valid;
            try {
                valid = validator.validate(outputSchema, structured);
            } catch (RuntimeException e) {
                return DispatchResult.unknown(null, ErrorCodes.UNEXPECTED_RESPONSE,
                        "the tool's outputSchema cannot be applied");
            }
            if (!valid.valid()) {
                return DispatchResult.unknown(null, ErrorCodes.UNEXPECTED_RESPONSE,
                        "structuredContent does not validate against the tool's outputSchema: "
                                + Redaction.snippet(valid.errorMessage(), Redaction.DEFAULT_SNIPPET, secrets));
            }
        }
        Optional<ObjectNode> body = structured == null ? Optional.empty()
                : Optional.of(Json.MAPPER.valueToTree(structured)).filter(ObjectNode.class::isInstance)
                        .map(ObjectNode.class::cast);
        if (successMember != null) {
            JsonNode member = body.map(b -> b.get(successMember)).orElse(null);
            if (member == null || member.isNull() || (member.isTextual() && member.asText().isEmpty())) {
                return DispatchResult.unknown(null, ErrorCodes.UNEXPECTED_RESPONSE,
                        "structuredContent has no member '" + successMember + "'");
            }
        }
        return DispatchResult.succeeded(null, receiptId(body, successMember));
    }

    /**
     * A failure of the call itself. {@code sent} is false while nothing of the {@code tools/call} request can have
     * left (the session was being opened, the tool list read, or the connection was refused): {@code NOT_DISPATCHED}.
     * After that, a JSON-RPC refusal of the request as such is {@code FAILED}; anything else (timeout, reset, session
     * lost, a server error) is {@code UNKNOWN} and never replayed.
     */
    DispatchResult forFailure(Throwable failure, boolean sent) {
        if (!sent || refusedConnection(failure)) {
            return DispatchResult.notDispatched(beforeSendCode(failure),
                    "the upstream MCP server was not reached: " + describe(failure));
        }
        McpError error = find(failure, McpError.class);
        if (error != null && error.getJsonRpcError() != null && error.getJsonRpcError().code() != null) {
            int code = error.getJsonRpcError().code();
            String detail = "JSON-RPC error " + code + ": "
                    + Redaction.snippet(error.getJsonRpcError().message(), Redaction.DEFAULT_SNIPPET, secrets);
            return REFUSED.contains(code) ? DispatchResult.failed(null, ErrorCodes.PROVIDER_REJECTED, detail)
                    : DispatchResult.unknown(null, ErrorCodes.PROVIDER_ERROR, detail);
        }
        if (timedOut(failure)) {
            return DispatchResult.unknown(null, ErrorCodes.RESPONSE_TIMEOUT,
                    "no answer from the upstream MCP server within the response timeout");
        }
        return DispatchResult.unknown(null, ErrorCodes.CONNECTION_LOST,
                "the call may have reached the upstream MCP server: " + describe(failure));
    }

    /**
     * The status tool's answer about one idempotency key: {@code {"status":"applied","id":...}} proves the effect,
     * {@code {"status":"not_applied"}} proves none (the key was never accepted), anything else proves nothing.
     */
    LookupResult forStatus(McpSchema.CallToolResult result, String successMember) {
        if (result == null || Boolean.TRUE.equals(result.isError())) {
            return LookupResult.stillUnknown("the status tool answered an error");
        }
        Optional<ObjectNode> body = result.structuredContent() != null
                ? Optional.of(Json.MAPPER.valueToTree(result.structuredContent())).filter(ObjectNode.class::isInstance)
                        .map(ObjectNode.class::cast)
                : Json.object(text(result));
        String status = body.flatMap(b -> Json.text(b, "status")).orElse("");
        return switch (status) {
            case "applied" -> LookupResult.confirmed("the status tool reports the key applied",
                    receiptId(body, successMember));
            case "not_applied" -> LookupResult.noEffect("the status tool has no record of the key");
            default -> LookupResult.stillUnknown("the status tool answered without a documented status");
        };
    }

    private String receiptId(Optional<ObjectNode> body, String successMember) {
        String member = successMember == null ? "id" : successMember;
        JsonNode id = body.map(b -> b.get(member)).orElse(null);
        if (id == null || !(id.isTextual() || id.isIntegralNumber())) {
            return null;
        }
        String value = id.asText();
        return RECEIPT_ID.matcher(value).matches() ? Redaction.identifier(value, 128, secrets) : null;
    }

    private static String text(McpSchema.CallToolResult result) {
        StringBuilder out = new StringBuilder();
        if (result.content() != null) {
            for (McpSchema.Content c : result.content()) {
                if (c instanceof McpSchema.TextContent t && t.text() != null) {
                    out.append(out.length() > 0 ? " " : "").append(t.text());
                }
            }
        }
        return out.toString();
    }

    private static boolean refusedConnection(Throwable failure) {
        return find(failure, ConnectException.class) != null || find(failure, HttpConnectTimeoutException.class) != null
                || find(failure, UnresolvedAddressException.class) != null;
    }

    private static String beforeSendCode(Throwable failure) {
        return find(failure, HttpConnectTimeoutException.class) != null ? ErrorCodes.CONNECT_TIMEOUT
                : find(failure, ConnectException.class) != null ? ErrorCodes.CONNECTION_REFUSED
                : ErrorCodes.PROVIDER_UNAVAILABLE;
    }

    private static boolean timedOut(Throwable failure) {
        if (find(failure, TimeoutException.class) != null || find(failure, HttpTimeoutException.class) != null) {
            return true;
        }
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().toLowerCase(java.util.Locale.ROOT).contains("timeout")) {
                return true;
            }
        }
        return false;
    }

    private String describe(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName()
                + (root.getMessage() == null ? "" : " " + Redaction.snippet(root.getMessage(), 80, secrets));
    }

    private static <T extends Throwable> T find(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }
}
