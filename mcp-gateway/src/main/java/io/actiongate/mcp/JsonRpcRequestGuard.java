package io.actiongate.mcp;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Set;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

import io.actiongate.json.JsonErrors;
import io.actiongate.scan.CredentialScanner;

/**
 * Answers, before the MCP SDK does, the two requests whose SDK answers repeat their input (input may
 * hold a credential): a body that is not JSON (the SDK logs Jackson's message, which quotes it) is answered 400 with
 * JSON-RPC error -32700 giving the kind and position of the failure ({@link JsonErrors}); a {@code tools/call} of a
 * tool the gateway does not list (the SDK answers {@code "Tool not found: <name>"}) is answered with JSON-RPC error
 * -32602 "Unknown tool". Neither names any input; the request's id comes back only when the credential scanner
 * passes it. Every other request reaches the SDK with its body as it came.
 */
final class JsonRpcRequestGuard implements Filter {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final CredentialScanner SCANNER = CredentialScanner.defaults();

    private final Set<String> tools;

    JsonRpcRequestGuard(Set<String> tools) {
        this.tools = Set.copyOf(tools);
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest request = (HttpServletRequest) req;
        if (!"POST".equals(request.getMethod())) {
            chain.doFilter(req, res);
            return;
        }
        byte[] body = request.getInputStream().readAllBytes();
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (JacksonException e) {
            // answered here with the kind and position only; JsonRpcErrorFilter sends this body with the 400
            ObjectNode error = JSON.createObjectNode().put("jsonrpc", "2.0").putNull("id");
            error.putObject("error").put("code", -32700).put("message", "Parse error")
                    .put("data", "not JSON: " + JsonErrors.describe(e));
            req.setAttribute(JsonRpcErrorFilter.BODY_ATTRIBUTE, JSON.writeValueAsString(error));
            ((HttpServletResponse) res).setStatus(400);
            return;
        }
        JsonNode unknownCall = unknownToolCall(root);
        if (unknownCall == null) {
            chain.doFilter(new Replayed(request, body), res);
            return;
        }
        ObjectNode answer = JSON.createObjectNode().put("jsonrpc", "2.0");
        JsonNode id = unknownCall.path("id");
        if (id.isNumber() || id.isTextual() && SCANNER.scan(id.asText()).isEmpty()) {
            answer.set("id", id);
        } else {
            answer.putNull("id");
        }
        answer.putObject("error").put("code", -32602).put("message", "Unknown tool")
                .put("data", "no tool of that name: tools/list names every tool (the name sent is not repeated)");
        byte[] bytes = JSON.writeValueAsBytes(answer);
        HttpServletResponse response = (HttpServletResponse) res;
        response.setStatus(200);
        response.setContentType("application/json");
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
    }

    /** The {@code tools/call} message of {@code root} naming a tool not listed here, or null. */
    private JsonNode unknownToolCall(JsonNode root) {
        if (root == null) {
            return null;
        }
        for (JsonNode message : root.isArray() ? root : java.util.List.of(root)) {
            if ("tools/call".equals(message.path("method").asText())
                    && !tools.contains(message.path("params").path("name").asText(null))) {
                return message;
            }
        }
        return null;
    }

    /** The request with its body read once here and given again to the SDK. */
    private static final class Replayed extends HttpServletRequestWrapper {

        private final byte[] body;

        Replayed(HttpServletRequest request, byte[] body) {
            super(request);
            this.body = body;
        }

        @Override
        public ServletInputStream getInputStream() {
            ByteArrayInputStream in = new ByteArrayInputStream(body);
            return new ServletInputStream() {
                @Override
                public boolean isFinished() {
                    return in.available() == 0;
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setReadListener(ReadListener listener) {
                    try {
                        listener.onDataAvailable();
                        listener.onAllDataRead();
                    } catch (IOException e) {
                        listener.onError(e);
                    }
                }

                @Override
                public int read() {
                    return in.read();
                }

                @Override
                public int read(byte[] b, int off, int len) {
                    return in.read(b, off, len);
                }
            };
        }

        @Override
        public BufferedReader getReader() {
            return new BufferedReader(new InputStreamReader(new ByteArrayInputStream(body), StandardCharsets.UTF_8));
        }

        @Override
        public int getContentLength() {
            return body.length;
        }

        @Override
        public long getContentLengthLong() {
            return body.length;
        }
    }
}
