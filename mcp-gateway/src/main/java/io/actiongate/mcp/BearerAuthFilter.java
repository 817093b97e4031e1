package io.actiongate.mcp;

import java.io.IOException;
import java.util.Optional;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import io.actiongate.runtime.BearerHeader;
import io.actiongate.runtime.BearerTokens;

/**
 * Refuses every request without a known bearer token (401) before the MCP endpoint sees it, and hands the host's
 * identity to the endpoint as a request attribute (a servlet request's own, never shared across requests). The
 * header is read and the token looked up by the runtime ({@link BearerHeader}, {@link BearerTokens}).
 */
final class BearerAuthFilter implements Filter {

    static final String IDENTITY_ATTRIBUTE = "io.actiongate.mcp.identity";
    static final String TASK_HEADER = "X-ActionGate-Task-Id";
    static final String TASK_ATTRIBUTE = "io.actiongate.mcp.task";

    private final BearerTokens<HostIdentity> tokens;

    BearerAuthFilter(BearerTokens<HostIdentity> tokens) {
        this.tokens = tokens;
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest request = (HttpServletRequest) req;
        HttpServletResponse response = (HttpServletResponse) res;
        Optional<HostIdentity> identity = tokens.fromHeader(request.getHeader(BearerHeader.AUTHORIZATION));
        if (identity.isEmpty()) {
            response.setHeader("WWW-Authenticate", "Bearer realm=\"actiongate-mcp\"");
            response.sendError(HttpServletResponse.SC_UNAUTHORIZED, "a tool host token is required");
            return;
        }
        request.setAttribute(IDENTITY_ATTRIBUTE, identity.get());
        String task = request.getHeader(TASK_HEADER);
        if (task != null) {
            request.setAttribute(TASK_ATTRIBUTE, task.strip());
        }
        chain.doFilter(req, res);
    }
}
