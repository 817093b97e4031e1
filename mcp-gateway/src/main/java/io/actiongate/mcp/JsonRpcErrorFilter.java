package io.actiongate.mcp;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;

/**
 * Keeps the MCP endpoint's HTTP error bodies to a JSON-RPC error object. The SDK's transport writes some errors (a
 * request without a session, say) as a serialized exception, stack trace and all; this filter drops any body written
 * with a status of 400 or more and writes {@link JsonRpcErrorHandler#body} instead. Bodies of successful answers
 * (JSON and event streams, JSON-RPC errors inside them included) pass through untouched and unbuffered.
 */
final class JsonRpcErrorFilter implements Filter {

    /** A request attribute holding the JSON-RPC error body this gateway wrote itself for an error status. */
    static final String BODY_ATTRIBUTE = "io.actiongate.mcp.jsonrpc-error-body";

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        HttpServletResponse response = (HttpServletResponse) res;
        Guarded guarded = new Guarded(response);
        chain.doFilter(req, guarded);
        if ((guarded.swallowed || req.getAttribute(BODY_ATTRIBUTE) != null) && !response.isCommitted()) {
            // a body of this gateway's own (JsonRpcRequestGuard's parse error), else the fixed one of the status
            Object own = req.getAttribute(BODY_ATTRIBUTE);
            byte[] body = (own instanceof String text ? text : JsonRpcErrorHandler.body(guarded.getStatus()))
                    .getBytes(StandardCharsets.UTF_8);
            response.resetBuffer();
            response.setContentType("application/json");
            response.setContentLength(body.length);
            response.getOutputStream().write(body);
        }
    }

    /** Passes everything through until an error status is set; from then on the body is swallowed. */
    private static final class Guarded extends HttpServletResponseWrapper {

        private boolean swallowed;

        Guarded(HttpServletResponse response) {
            super(response);
        }

        private boolean error() {
            return getStatus() >= 400;
        }

        @Override
        public ServletOutputStream getOutputStream() throws IOException {
            if (!error()) {
                return super.getOutputStream();
            }
            swallowed = true;
            return new Sink();
        }

        @Override
        public PrintWriter getWriter() throws IOException {
            if (!error()) {
                return super.getWriter();
            }
            swallowed = true;
            return new PrintWriter(new ByteArrayOutputStream());
        }

        @Override
        public void setContentLength(int len) {
            if (!error()) {
                super.setContentLength(len);
            }
        }

        @Override
        public void setContentLengthLong(long len) {
            if (!error()) {
                super.setContentLengthLong(len);
            }
        }
    }

    /** Discards what it is given. */
    private static final class Sink extends ServletOutputStream {

        @Override
        public boolean isReady() {
            return true;
        }

        @Override
        public void setWriteListener(WriteListener listener) {
            try {
                listener.onWritePossible();
            } catch (IOException e) {
                listener.onError(e);
            }
        }

        @Override
        public void write(int b) {
            // discarded: an error body is replaced
        }

        @Override
        public void write(byte[] b, int off, int len) {
            // discarded: an error body is replaced
        }
    }
}
