package io.actiongate.mcp;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import io.actiongate.runtime.BearerTokens;

/**
 * The tool hosts' token file (the MCP gateway's {@code mcp.gateway.tokens.file}, the node's
 * {@code http.proposals.tokens.file}): one host a line, {@code TOKEN PRINCIPAL_ID ORG_ID PROFILE_ID}, read and
 * re-read on change by the runtime's {@link BearerTokens}. A malformed line or a file without a host refuses the
 * file (at start; on a change the tokens read before stay).
 */
public final class HostTokens {

    /** Shorter tokens are refused: a tool host's token is a secret, not a name. */
    public static final int MIN_TOKEN_LENGTH = 16;

    private HostTokens() {
    }

    /** Reads {@code file} ({@code key} names it in messages). */
    public static BearerTokens<HostIdentity> load(String key, Path file) {
        return new BearerTokens<>(key, file, HostTokens::line, true);
    }

    private static Optional<HostIdentity> line(String token, List<String> rest) {
        if (rest.size() != 3 || token.length() < MIN_TOKEN_LENGTH) {
            // never echo the line: it holds a token
            throw new IllegalArgumentException("expected TOKEN PRINCIPAL_ID ORG_ID PROFILE_ID with a token of "
                    + MIN_TOKEN_LENGTH + " characters or more");
        }
        return Optional.of(new HostIdentity(rest.get(0), rest.get(1), rest.get(2)));
    }
}
