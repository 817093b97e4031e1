package io.actiongate.serde;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;

/**
 * Every released writer schema, read from {@code io/actiongate/schemas/index.txt} on the classpath and grouped
 * by record full name. Each version directory is parsed with its own parser, so v1 and v2 of a record can
 * share a name.
 */
public final class SchemaCatalog {

    static final String ROOT = "io/actiongate/schemas/";

    private static final SchemaCatalog RELEASED = load(SchemaCatalog.class.getClassLoader());

    private final Map<String, List<Schema>> byFullName;
    private final Map<Long, String> since;

    private SchemaCatalog(Map<String, List<Schema>> byFullName, Map<Long, String> since) {
        this.byFullName = byFullName;
        this.since = since;
    }

    /** The catalog of every schema version released with this build. */
    public static SchemaCatalog released() {
        return RELEASED;
    }

    static SchemaCatalog load(ClassLoader loader) {
        return load(loader, ROOT + "index.txt");
    }

    /**
     * Reads the catalog listed by the index resource {@code index}; its entries are {@code version/File.avsc}
     * paths below {@link #ROOT}, a record's entry optionally followed by {@code since=RELEASE}, the release that
     * first writes it (see {@link #since}). Tests use this to add a synthetic version beside the released ones.
     */
    static SchemaCatalog load(ClassLoader loader, String index) {
        Map<String, Schema.Parser> parsers = new LinkedHashMap<>();
        Map<String, List<Schema>> byName = new LinkedHashMap<>();
        Map<Long, String> since = new LinkedHashMap<>();
        for (String line : readIndex(loader, index)) {
            String[] parts = line.split("\\s+");
            String entry = parts[0];
            String release = null;
            for (int i = 1; i < parts.length; i++) {
                if (!parts[i].startsWith("since=") || parts[i].length() == "since=".length()) {
                    throw new IllegalStateException("schema index line '" + line + "': expected 'since=RELEASE' "
                            + "after the file");
                }
                release = parts[i].substring("since=".length());
            }
            String version = entry.substring(0, entry.indexOf('/'));
            Schema.Parser parser = parsers.computeIfAbsent(version, v -> new Schema.Parser());
            Schema schema;
            try (InputStream in = open(loader, ROOT + entry)) {
                schema = parser.parse(in);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read released schema " + entry, e);
            }
            if (schema.getType() == Schema.Type.RECORD && !entry.contains("/common/")) {
                byName.computeIfAbsent(schema.getFullName(), n -> new ArrayList<>()).add(schema);
                if (release != null) {
                    since.put(fingerprint(schema), release);
                }
            }
        }
        byName.replaceAll((name, list) -> List.copyOf(list));
        return new SchemaCatalog(Collections.unmodifiableMap(byName), Map.copyOf(since));
    }

    private static List<String> readIndex(ClassLoader loader, String index) {
        List<String> entries = new ArrayList<>();
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(open(loader, index), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                line = line.strip();
                if (!line.isEmpty() && !line.startsWith("#")) {
                    entries.add(line);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the schema index", e);
        }
        return entries;
    }

    private static InputStream open(ClassLoader loader, String resource) {
        return Objects.requireNonNull(loader.getResourceAsStream(resource), () -> "missing resource " + resource);
    }

    /** Every released version of the record {@code fullName}, oldest first; empty when none was released. */
    public List<Schema> versionsOf(String fullName) {
        return byFullName.getOrDefault(fullName, List.of());
    }

    /**
     * The release that first writes {@code schema}, when its index line says ({@code since=RELEASE}): every version
     * listed after the first release that reads versions it does not know carries one, and the records written in
     * it carry the header {@link AvroSerde#FORMAT_HEADER} so that an older role can name what it met. Empty for
     * the versions every such release reads.
     */
    public Optional<String> since(Schema schema) {
        return Optional.ofNullable(since.get(fingerprint(schema)));
    }

    /** The record names that have at least one released version. */
    public java.util.Set<String> recordNames() {
        return byFullName.keySet();
    }

    /** The CRC-64-AVRO fingerprint of the schema's Parsing Canonical Form, as single-object encoding uses it. */
    public static long fingerprint(Schema schema) {
        return SchemaNormalization.parsingFingerprint64(schema);
    }
}
