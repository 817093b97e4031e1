package io.actiongate.http;

import java.io.IOException;
import java.util.Optional;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpExchange;

import io.actiongate.mcp.HostIdentity;

/**
 * On {@code /v1/actions/...}: a tool host's token (from {@value ProposalApiConfig#TOKENS_FILE_CONFIG}) passes (the
 * handler, {@link ActionWaitHandler}, limits its answer to the host's org); any other request goes through the
 * node's own authentication ({@link AuthFilter}), or passes when {@code /v1} is open. Nothing is stored on the
 * exchange: the JDK server's exchange attributes are the context's, shared by concurrent requests.
 */
final class HostIdentityFilter extends Filter {


    private final ProposalApi api;
    private final Filter otherwise;

    /** @param otherwise the node's authentication, or null when {@code /v1} is open */
    HostIdentityFilter(ProposalApi api, Filter otherwise) {
        this.api = api;
        this.otherwise = otherwise;
    }

    @Override
    public String description() {
        return "tool host token, or the node's credentials";
    }

    @Override
    public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
        Optional<HostIdentity> host = identity(api, exchange);
        if (host.isPresent()) {
            chain.doFilter(exchange);
        } else if (otherwise != null) {
            otherwise.doFilter(exchange, chain);
        } else {
            chain.doFilter(exchange);
        }
    }

    /** The host whose token the request bears, if any. */
    static Optional<HostIdentity> identity(ProposalApi api, HttpExchange exchange) {
        return BearerHeader.token(exchange).flatMap(api::authenticate);
    }
}
