package io.actiongate.http;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.Optional;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

import io.actiongate.mcp.HostIdentity;
import io.actiongate.runtime.HttpSurface;

/**
 * One request of the node's HTTP API and its one answer, on Jetty. Per request: a caller's identity is computed
 * from it by the handlers, never stored in anything shared. {@link #send} writes without blocking and completes
 * the request; {@link #close} fails a request nothing answered, so a connection never hangs.
 */
final class HttpCall implements AutoCloseable {

    private final Request request;
    private final Response response;
    private final Callback callback;
    private boolean sent;
    private Optional<HostIdentity> host;

    HttpCall(Request request, Response response, Callback callback) {
        this.request = Objects.requireNonNull(request);
        this.response = response;
        this.callback = callback;
    }

    Request request() {
        return request;
    }

    String method() {
        return request.getMethod();
    }

    /** The path as sent, not decoded ({@code %xx} stays). */
    String rawPath() {
        String path = request.getHttpURI().getPath();
        return path == null ? "/" : path;
    }

    /** The query as sent, or null. */
    String rawQuery() {
        return request.getHttpURI().getQuery();
    }

    String header(String name) {
        return request.getHeaders().get(name);
    }

    String remote() {
        String r = Request.getRemoteAddr(request);
        return r == null ? "?" : r;
    }

    /** Whether the request came over TLS with a verified client certificate. */
    boolean clientCertificate() {
        return HttpSurface.clientCertificates(request);
    }

    /**
     * The tool host whose token this request bears, looked up with {@code lookup} once per request (several handlers
     * ask; the token file is consulted once).
     */
    synchronized Optional<HostIdentity> host(java.util.function.Function<HttpCall, Optional<HostIdentity>> lookup) {
        if (host == null) {
            host = lookup.apply(this);
        }
        return host;
    }

    void setHeader(String name, String value) {
        response.getHeaders().put(name, value);
    }

    synchronized boolean sent() {
        return sent;
    }

    /** Answers; the body is left out for HEAD. */
    synchronized void send(int status, String contentType, byte[] body) {
        if (sent) {
            throw new IllegalStateException("response already sent");
        }
        sent = true;
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        boolean head = "HEAD".equals(request.getMethod());
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, (long) body.length);
        response.write(true, head || body.length == 0 ? ByteBuffer.allocate(0) : ByteBuffer.wrap(body), callback);
    }

    /** A request nothing answered is failed (Jetty answers 500 then). */
    @Override
    public synchronized void close() {
        if (!sent) {
            sent = true;
            callback.failed(new IllegalStateException("no response"));
        }
    }
}
