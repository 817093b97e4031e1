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

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bearer tokens accepted by the HTTP surface: one per line of a file (a mounted secret; {@code #} comments and
 * blank lines ignored), several at once so clients can rotate. The file is re-read when its modification time or
 * size changes, so an updated Kubernetes Secret takes effect without a restart; a file that became unreadable keeps
 * the last tokens read. Only SHA-256 digests are kept, and a candidate is compared with every one of them in
 * constant time (no early exit, no length leak). No token is ever logged.
 */
final class BearerTokens {

    private static final Logger LOG = LoggerFactory.getLogger(BearerTokens.class);

    private final Path file;
    private volatile Snapshot snapshot;

    private record Snapshot(FileTime modified, long size, List<byte[]> digests) {
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
        byte[] offered = sha256(candidate.getBytes(StandardCharsets.UTF_8));
        boolean found = false;
        for (byte[] digest : current().digests()) {
            found |= MessageDigest.isEqual(digest, offered);
        }
        return found;
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
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String token = line.strip();
            if (!token.isEmpty() && !token.startsWith("#")) {
                digests.add(sha256(token.getBytes(StandardCharsets.UTF_8)));
            }
        }
        return new Snapshot(modified, size, List.copyOf(digests));
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
