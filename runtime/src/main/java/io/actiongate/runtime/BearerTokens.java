package io.actiongate.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one reader of bearer-token files for every HTTP surface: one token a line of a file (a mounted secret;
 * {@code #} comments and blank lines ignored), the token first and what it names after it, several at once so
 * clients can rotate. What a line names is the surface's: a {@link LineFormat} turns the words after the token into
 * {@code T} (the node's {@code TOKEN [ORG_ID]}, the tool hosts' {@code TOKEN PRINCIPAL_ID ORG_ID PROFILE_ID}).
 *
 * <p>The file is re-read when its modification time or size changes, so an updated Kubernetes Secret takes effect
 * without a restart; a file that became unreadable, or whose new contents the format refuses, keeps the last tokens
 * read. Only SHA-256 digests are kept, and a candidate is compared with every one of them in constant time (no
 * early exit, no length leak). No token, and no line that holds one, is ever logged or put in an exception.
 *
 * @param <T> what a token names (one immutable value per token; never per request)
 */
public final class BearerTokens<T> {

    private static final Logger LOG = LoggerFactory.getLogger(BearerTokens.class);

    /** Reads one line. */
    @FunctionalInterface
    public interface LineFormat<T> {
        /**
         * What the token of a line names.
         *
         * @param token the first word (the format may refuse it, e.g. too short)
         * @param rest  the words after it
         * @return the value, or empty to skip the line with a warning
         * @throws IllegalArgumentException to refuse the whole file (message without the token)
         */
        Optional<T> parse(String token, List<String> rest);
    }

    private record Snapshot<T>(FileTime modified, long size, List<byte[]> digests, List<T> values) {
    }

    private final String key;
    private final Path file;
    private final LineFormat<T> format;
    private final boolean refuseEmpty;
    private volatile Snapshot<T> snapshot;

    /**
     * Reads {@code file} now; an unreadable file, or one the format refuses, is a configuration error.
     *
     * @param key         the configuration key that names the file (in messages)
     * @param refuseEmpty true: a file without any token is a configuration error too
     */
    public BearerTokens(String key, Path file, LineFormat<T> format, boolean refuseEmpty) {
        this.key = Objects.requireNonNull(key, "key");
        this.file = Objects.requireNonNull(file, "file");
        this.format = Objects.requireNonNull(format, "format");
        this.refuseEmpty = refuseEmpty;
        try {
            this.snapshot = read();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + key + " " + file + ": " + e.getClass().getSimpleName(),
                    e);
        }
        if (snapshot.digests().isEmpty()) {
            LOG.warn("{} {} holds no token: every bearer token is refused", key, file);
        }
    }

    /** How many tokens are accepted now. */
    public int size() {
        return current().digests().size();
    }

    /** What {@code candidate} names, or empty when it is no token; in time independent of which one matched. */
    public Optional<T> lookup(String candidate) {
        if (candidate == null || candidate.isEmpty()) {
            return Optional.empty();
        }
        byte[] offered = sha256(candidate);
        Snapshot<T> known = current();
        int found = -1;
        for (int i = 0; i < known.digests().size(); i++) {
            boolean match = MessageDigest.isEqual(known.digests().get(i), offered);
            found = match ? i : found;
        }
        return found < 0 ? Optional.empty() : Optional.of(known.values().get(found));
    }

    /** What the bearer token of an {@code Authorization} header value names, if any. */
    public Optional<T> fromHeader(String authorization) {
        return BearerHeader.token(authorization).flatMap(this::lookup);
    }

    private Snapshot<T> current() {
        Snapshot<T> known = snapshot;
        try {
            // one stat per lookup: the file's time and size together
            BasicFileAttributes now = Files.readAttributes(file, BasicFileAttributes.class);
            if (!now.lastModifiedTime().equals(known.modified()) || now.size() != known.size()) {
                synchronized (this) {
                    known = read();
                    snapshot = known;
                }
                LOG.info("{} changed: {} token(s) accepted now", key, known.digests().size());
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot re-read {} {} ({}); keeping the {} token(s) read before", key, file,
                    e instanceof IllegalArgumentException ? e.getMessage() : e.getClass().getSimpleName(),
                    known.digests().size());
        }
        return known;
    }

    private Snapshot<T> read() throws IOException {
        FileTime modified = Files.getLastModifiedTime(file);
        long size = Files.size(file);
        List<byte[]> digests = new ArrayList<>();
        List<T> values = new ArrayList<>();
        int lineNumber = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            lineNumber++;
            String entry = line.strip();
            if (entry.isEmpty() || entry.startsWith("#")) {
                continue;
            }
            String[] parts = entry.split("\\s+");
            Optional<T> value;
            try {
                value = format.parse(parts[0], List.of(parts).subList(1, parts.length));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(key + " " + file + " line " + lineNumber + ": " + e.getMessage());
            }
            if (value.isEmpty()) {
                LOG.warn("{} line {} is not in the expected format; ignored", key, lineNumber);
                continue;
            }
            digests.add(sha256(parts[0]));
            values.add(value.get());
        }
        if (refuseEmpty && digests.isEmpty()) {
            throw new IllegalArgumentException(key + " " + file + ": no token; every caller would be refused");
        }
        return new Snapshot<>(modified, size, List.copyOf(digests), List.copyOf(values));
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
