package io.actiongate.http;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bearer tokens accepted by the HTTP surface: one per line of a file (a mounted secret; {@code #} comments and
 * blank lines ignored), several at once so clients can rotate. A line {@code TOKEN ORG_ID} gives the token an org:
 * its caller is answered only about that org's actions; a token alone is an operator's, answered about every org. The file is re-read when its modification time or
 * size changes, so an updated Kubernetes Secret takes effect without a restart; a file that became unreadable keeps
 * the last tokens read. Only SHA-256 digests are kept, and a candidate is compared with every one of them in
 * constant time (no early exit, no length leak). No token is ever logged.
 */
final class BearerTokens {

    private static final Logger LOG = LoggerFactory.getLogger(BearerTokens.class);

    private static final Pattern ORG_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

    private final Path file;
    private volatile Snapshot snapshot;

    private record Snapshot(FileTime modified, long size, List<byte[]> digests, List<String> orgs) {
    }

    /** Who presented a valid token: {@code org} is the token's org, or null for a token without one. */
    record Caller(String org) {
    }

    /** Reads {@code file} now; an unreadable file is a configuration error. */
    BearerTokens(Path file) {
        this.file = Objects.requireNonNull(file, "file");
        try {
            this.snapshot = read();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + HttpServerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG + " "
                    + file + ": " + e.getClass().getSimpleName(), e);
        }
        if (snapshot.digests().isEmpty()) {
            LOG.warn("{} {} holds no token: every bearer token is refused",
                    HttpServerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG, file);
        }
    }

    int size() {
        return current().digests().size();
    }

    /** Whether {@code candidate} is one of the tokens, in time independent of which one and of their contents. */
    boolean matches(String candidate) {
        return caller(candidate).isPresent();
    }

    /** The caller {@code candidate} names, or empty when it is no token; in time independent of which one matched. */
    Optional<Caller> caller(String candidate) {
        byte[] offered = sha256(candidate.getBytes(StandardCharsets.UTF_8));
        Snapshot known = current();
        int found = -1;
        for (int i = 0; i < known.digests().size(); i++) {
            boolean match = MessageDigest.isEqual(known.digests().get(i), offered);
            found = match ? i : found;
        }
        return found < 0 ? Optional.empty() : Optional.of(new Caller(known.orgs().get(found)));
    }

    private Snapshot current() {
        Snapshot known = snapshot;
        try {
            FileTime modified = Files.getLastModifiedTime(file);
            long size = Files.size(file);
            if (!modified.equals(known.modified()) || size != known.size()) {
                synchronized (this) {
                    known = read();
                    snapshot = known;
                }
                LOG.info("{} changed: {} token(s) accepted now", HttpServerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG,
                        known.digests().size());
            }
        } catch (IOException e) {
            LOG.warn("cannot re-read {} {} ({}); keeping the {} token(s) read before",
                    HttpServerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG, file, e.getClass().getSimpleName(),
                    known.digests().size());
        }
        return known;
    }

    private Snapshot read() throws IOException {
        FileTime modified = Files.getLastModifiedTime(file);
        long size = Files.size(file);
        List<byte[]> digests = new ArrayList<>();
        List<String> orgs = new ArrayList<>();
        int lineNumber = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            lineNumber++;
            String entry = line.strip();
            if (entry.isEmpty() || entry.startsWith("#")) {
                continue;
            }
            String[] parts = entry.split("\\s+");
            if (parts.length > 2 || (parts.length == 2 && !ORG_ID.matcher(parts[1]).matches())) {
                LOG.warn("{} line {} is neither TOKEN nor TOKEN ORG_ID; ignored",
                        HttpServerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG, lineNumber);
                continue;
            }
            digests.add(sha256(parts[0].getBytes(StandardCharsets.UTF_8)));
            orgs.add(parts.length == 2 ? parts[1] : null);
        }
        return new Snapshot(modified, size, List.copyOf(digests), java.util.Collections.unmodifiableList(orgs));
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
