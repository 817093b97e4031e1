package io.actiongate.mcp;

import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's error pages, replaced: every error the container answers (404, 405, a refused token, an exception) is a
 * JSON-RPC error object with a fixed message for its status, never a stack trace, a class name or an HTML page.
 */
final class JsonRpcErrorHandler extends org.eclipse.jetty.ee10.servlet.ErrorHandler {

    @Override
    protected boolean generateAcceptableResponse(Request request, Response response, Callback callback,
            String contentType, List<Charset> charsets, int code, String message, Throwable cause) {
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, ByteBuffer.wrap(body(code).getBytes(StandardCharsets.UTF_8)), callback);
        return true;
    }

    /** The JSON-RPC error object for an HTTP error status. */
    static String body(int status) {
        int code = status >= 500 ? -32603 : -32600;
        return "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":" + code + ",\"message\":\"" + message(status)
                + "\",\"data\":{\"http_status\":" + status + "}}}";
    }

    static String message(int status) {
        return switch (status) {
            case 400 -> "bad request (an MCP session starts with initialize; later requests name its Mcp-Session-Id)";
            case 401 -> "a valid bearer token is required (WWW-Authenticate says why)";
            case 403 -> "forbidden (WWW-Authenticate names what is missing)";
            case 404 -> "not found (the MCP endpoint is /mcp)";
            case 405 -> "method not allowed";
            case 406 -> "not acceptable (send Accept: application/json, text/event-stream)";
            case 413 -> "request too large";
            case 415 -> "unsupported media type (send Content-Type: application/json)";
            case 503 -> "unavailable for now; try again";
            default -> status >= 500 ? "internal error" : "request refused";
        };
    }
}
