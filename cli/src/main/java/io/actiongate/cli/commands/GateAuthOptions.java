package io.actiongate.cli.commands;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import picocli.CommandLine.Option;

/**
 * The bearer token a command presents to the gate's HTTP surface ({@code /v1/...} needs one unless the gate accepts
 * client certificates; those come from the JVM's {@code javax.net.ssl.keyStore} settings in
 * {@code ACTIONGATE_JAVA_OPTS}). A file is preferred: a {@code --token} value is visible in process lists.
 */
final class GateAuthOptions {

    @Option(names = "--token-file", paramLabel = "FILE",
            description = "File whose first non-blank line is the bearer token for the gate's HTTP API "
                    + "(`dev` prints its path).")
    Path tokenFile;

    @Option(names = "--token", paramLabel = "TOKEN",
            description = "Bearer token for the gate's HTTP API (visible in process lists; prefer --token-file).")
    String token;

    /** The token, or null when none was given. */
    String token() {
        if (token != null && tokenFile != null) {
            throw new CommandFailure("give --token or --token-file, not both");
        }
        if (token != null) {
            return requireUsable(token.strip());
        }
        if (tokenFile == null) {
            return null;
        }
        try {
            for (String line : Files.readAllLines(tokenFile, StandardCharsets.UTF_8)) {
                String candidate = line.strip();
                if (!candidate.isEmpty() && !candidate.startsWith("#")) {
                    return requireUsable(candidate);
                }
            }
        } catch (IOException e) {
            throw new CommandFailure("cannot read --token-file " + tokenFile + ": " + e.getClass().getSimpleName(),
                    e);
        }
        throw new CommandFailure("--token-file " + tokenFile + " holds no token");
    }

    private static String requireUsable(String value) {
        if (value.isEmpty() || value.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
            throw new CommandFailure("the gate token must be printable ASCII without spaces");
        }
        return value;
    }
}
