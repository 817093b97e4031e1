package io.actiongate.mcp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The tool hosts' bearer tokens, read from a mounted secret file: one host a line,
 * {@code TOKEN PRINCIPAL_ID ORG_ID PROFILE_ID}, blank lines and {@code #} comments ignored. Only SHA-256 hashes of
 * the tokens are kept in memory; a presented token is compared in constant time against each.
 */
public final class BearerTokens {

    private record Entry(byte[] tokenHash, HostIdentity identity) {
    }

    private final List<Entry> entries;

    private BearerTokens(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    public static BearerTokens load(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the tool hosts' token file " + file, e);
        }
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] parts = line.split("\\s+");
            if (parts.length != 4 || parts[0].length() < 16) {
                // never echo the line: it holds a token
                throw new IllegalArgumentException(file + " line " + (i + 1)
                        + ": expected TOKEN PRINCIPAL_ID ORG_ID PROFILE_ID with a token of 16 characters or more");
            }
            entries.add(new Entry(sha256(parts[0]), new HostIdentity(parts[1], parts[2], parts[3])));
        }
        if (entries.isEmpty()) {
            throw new IllegalArgumentException(file + ": no tool host token; every host would be refused");
        }
        return new BearerTokens(entries);
    }

    /** The host whose token is {@code token}, if any. */
    public Optional<HostIdentity> authenticate(String token) {
        if (token == null || token.isEmpty()) {
            return Optional.empty();
        }
        byte[] presented = sha256(token);
        HostIdentity found = null;
        for (Entry e : entries) {
            if (MessageDigest.isEqual(e.tokenHash, presented)) {
                found = e.identity;
            }
        }
        return Optional.ofNullable(found);
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
