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
import jakarta.servlet.http.HttpServletResponseWrapper;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.runtime.BearerHeader;
import io.actiongate.runtime.BearerTokens;

/**
 * Decides who a request comes from before the MCP endpoint sees it (docs/contract.md section 6, "Who the host
 * is"): a static token of the token file, else an OAuth access token ({@link AccessTokens}); anything else is
 * refused with 401 (403 for a missing scope) and the challenge of RFC 6750 / RFC 9728. The host's identity reaches
 * the endpoint as a request attribute (a servlet request's own, never shared across requests), with the task the
 * header or the token names. A request naming an MCP session that another host opened is answered 404, as an
 * unknown session is ({@link SessionOwners}). The token itself goes no further.
 */
final class BearerAuthFilter implements Filter {

    static final String IDENTITY_ATTRIBUTE = "io.actiongate.mcp.identity";
    static final String TASK_HEADER = "X-ActionGate-Task-Id";
    static final String TASK_ATTRIBUTE = "io.actiongate.mcp.task";
    static final String TOKEN_TASK_ATTRIBUTE = "io.actiongate.mcp.token-task";
    static final String SESSION_HEADER = "Mcp-Session-Id";
    private static final Logger LOG = LoggerFactory.getLogger(BearerAuthFilter.class);

    private final BearerTokens<HostIdentity> tokens;
    private final AccessTokens accessTokens;
    private final ProtectedResource resource;
    private final SessionOwners sessions;

    /**
     * @param tokens       the static tokens, or null
     * @param accessTokens the OAuth validator, or null (then {@code resource} is null too)
     */
    BearerAuthFilter(BearerTokens<HostIdentity> tokens, AccessTokens accessTokens, ProtectedResource resource,
            SessionOwners sessions) {
        this.tokens = tokens;
        this.accessTokens = accessTokens;
        this.resource = resource;
        this.sessions = sessions;
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest request = (HttpServletRequest) req;
        HttpServletResponse response = (HttpServletResponse) res;
        Optional<String> bearer = BearerHeader.token(request.getHeader(BearerHeader.AUTHORIZATION));
        if (bearer.isEmpty()) {
            refuse(response, 401, resource == null ? staticChallenge(false) : resource.challenge(),
                    "a bearer token is required");
            return;
        }
        HostIdentity identity = tokens == null ? null : tokens.lookup(bearer.get()).orElse(null);
        String tokenTask = null;
        if (identity == null) {
            if (accessTokens == null) {
                refuse(response, 401, staticChallenge(true), "a tool host token is required");
                return;
            }
            AccessTokens.Check check = accessTokens.check(bearer.get());
            if (check.refusal() != null) {
                AccessTokens.Refusal refusal = check.refusal();
                LOG.info("access token refused: {}", refusal.description());
                refuse(response, refusal.status(), refusal.status() == 503 ? null : resource.challenge(refusal),
                        refusal.description());
                return;
            }
            identity = check.valid().host();
            tokenTask = check.valid().task().orElse(null);
        }
        String session = request.getHeader(SESSION_HEADER);
        if (session != null && !sessions.mayUse(session.strip(), identity)) {
            // answered as an unknown session is: the id tells nothing about whose it is
            LOG.info("refused a request of host {} (org {}) naming a session another host opened",
                    identity.principalId(), identity.orgId());
            response.sendError(HttpServletResponse.SC_NOT_FOUND, "session not found");
            return;
        }
        request.setAttribute(IDENTITY_ATTRIBUTE, identity);
        String task = request.getHeader(TASK_HEADER);
        if (task != null) {
            request.setAttribute(TASK_ATTRIBUTE, task.strip());
        }
        if (tokenTask != null) {
            request.setAttribute(TOKEN_TASK_ATTRIBUTE, tokenTask);
        }
        // an initialize: the session the endpoint opens belongs to this host, from the moment its id is set (before
        // the answer leaves, so the client's next request already finds it bound)
        chain.doFilter(req, session == null ? new Binding(response, identity) : res);
    }

    /** Binds the session id the endpoint sets on its answer to the host the request came from. */
    private final class Binding extends HttpServletResponseWrapper {

        private final HostIdentity identity;

        Binding(HttpServletResponse response, HostIdentity identity) {
            super(response);
            this.identity = identity;
        }

        @Override
        public void setHeader(String name, String value) {
            bind(name, value);
            super.setHeader(name, value);
        }

        @Override
        public void addHeader(String name, String value) {
            bind(name, value);
            super.addHeader(name, value);
        }

        private void bind(String name, String value) {
            if (SESSION_HEADER.equalsIgnoreCase(name) && value != null) {
                sessions.bind(value.strip(), identity);
            }
        }
    }

    private static String staticChallenge(boolean presented) {
        return "Bearer realm=\"actiongate-mcp\"" + (presented ? ", error=\"invalid_token\"" : "");
    }

    private static void refuse(HttpServletResponse response, int status, String challenge, String message)
            throws IOException {
        if (challenge != null) {
            response.setHeader("WWW-Authenticate", challenge);
        }
        response.sendError(status, message);
    }
}
