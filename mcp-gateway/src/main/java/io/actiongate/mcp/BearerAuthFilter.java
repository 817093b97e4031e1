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

/**
 * Refuses every request without a known bearer token (401) before the MCP endpoint sees it, and hands the host's
 * identity to the endpoint as a request attribute.
 */
final class BearerAuthFilter implements Filter {

    static final String IDENTITY_ATTRIBUTE = "io.actiongate.mcp.identity";
    static final String TASK_HEADER = "X-ActionGate-Task-Id";
    static final String TASK_ATTRIBUTE = "io.actiongate.mcp.task";
    private static final String PREFIX = "Bearer ";

    private final BearerTokens tokens;

    BearerAuthFilter(BearerTokens tokens) {
        this.tokens = tokens;
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest request = (HttpServletRequest) req;
        HttpServletResponse response = (HttpServletResponse) res;
        String header = request.getHeader("Authorization");
        Optional<HostIdentity> identity = header != null && header.regionMatches(true, 0, PREFIX, 0, PREFIX.length())
                ? tokens.authenticate(header.substring(PREFIX.length()).strip())
                : Optional.empty();
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
