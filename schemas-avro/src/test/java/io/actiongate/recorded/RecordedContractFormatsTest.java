package io.actiongate.recorded;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecordBase;
import org.junit.jupiter.api.Test;

import io.actiongate.serde.AvroSerde;
import io.actiongate.serde.AvroSerdes;
import io.actiongate.serde.Fingerprints;
import io.actiongate.serde.SchemaCatalog;

/**
 * Every contract record the project has ever written, as the build of its time wrote it (recorded bytes under
 * {@code src/test/resources/recorded/<generator>-<commit>/contract}, made as formats/README.md says), decoded by
 * this build into the values it was written with: a field the writer had keeps its value, a field added since
 * reads as its default. Every released schema version of every record (and every branch of the policy body) has a
 * recording, and this build's writer produces exactly the recorded bytes of the version it writes: a new version
 * cannot be added, and the written one cannot change, without its bytes being recorded here.
 */
class RecordedContractFormatsTest {

    /** One recorded value: the file, the record it holds, the policy body branch (or null), the writer schema. */
    record Recording(Path file, String generator, String record, String branch, byte[] bytes, Schema writer,
                     int version) {
        String name() {
            return generator + "/" + file.getFileName();
        }
    }

    private static final SchemaCatalog CATALOG = SchemaCatalog.released();

    static List<Recording> recordings() {
        List<Recording> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root())) {
            for (Path file : files.filter(f -> f.toString().endsWith(".bin")).sorted().toList()) {
                String generator = root().relativize(file).getName(0).toString();
                String base = file.getFileName().toString().replace(".bin", "");
                String record = base.contains("-") ? base.substring(0, base.indexOf('-')) : base;
                String branch = base.contains("-") ? base.substring(base.indexOf('-') + 1) : null;
                byte[] bytes = Files.readAllBytes(file);
                long fingerprint = fingerprint(bytes);
                List<Schema> versions = CATALOG.versionsOf("io.actiongate.avro." + record);
                Schema writer = null;
                int version = 0;
                for (int v = 0; v < versions.size(); v++) {
                    if (Fingerprints.of(versions.get(v)) == fingerprint) {
                        writer = versions.get(v);
                        version = v + 1;
                    }
                }
                assertThat(writer).as("%s/%s was written in a %s schema this build no longer reads "
                        + "(fingerprint %s)", generator, file.getFileName(), record, Fingerprints.wireHex(fingerprint))
                        .isNotNull();
                out.add(new Recording(file, generator, record, branch, bytes, writer, version));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(out).as("recorded contract records").isNotEmpty();
        return out;
    }

    static Path root() {
        try {
            return Path.of(RecordedContractFormatsTest.class.getResource("/recorded").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static long fingerprint(byte[] bytes) {
        long fingerprint = 0;
        for (int i = 0; i < 8; i++) {
            fingerprint |= (bytes[2 + i] & 0xffL) << (8 * i);
        }
        return fingerprint;
    }

    @Test
    void shouldDecodeEveryRecordingIntoTheValuesItWasWrittenWith() {
        for (Recording r : recordings()) {
            AvroSerde<SpecificRecordBase> serde = serde(r.record());
            SpecificRecordBase decoded = serde.deserialize("recorded", r.bytes());
            Schema current = decoded.getSchema();
            Object expected = expected(current, r.writer(), current.getName(), r.branch());
            assertThat(decoded).as("%s (%s v%d) read by this build", r.name(), r.record(), r.version())
                    .isEqualTo(expected);
        }
    }

    @Test
    void shouldHaveRecordedEveryReleasedVersionOfEveryRecord() {
        List<Recording> recordings = recordings();
        Map<String, List<String>> missing = new TreeMap<>();
        for (String name : CATALOG.recordNames()) {
            String record = name.substring(name.lastIndexOf('.') + 1);
            List<Schema> versions = CATALOG.versionsOf(name);
            for (int v = 0; v < versions.size(); v++) {
                long fingerprint = Fingerprints.of(versions.get(v));
                for (String branch : branches(versions.get(v))) {
                    boolean recorded = recordings.stream().anyMatch(r -> r.record().equals(record)
                            && java.util.Objects.equals(r.branch(), branch)
                            && fingerprint(r.bytes()) == fingerprint);
                    if (!recorded) {
                        missing.computeIfAbsent(record, k -> new ArrayList<>()).add("v" + (v + 1)
                                + (branch == null ? "" : " " + branch));
                    }
                }
            }
        }
        assertThat(missing).as("released versions without recorded bytes (formats/README.md says how to record "
                + "them)").isEmpty();
    }

    @Test
    void shouldWriteExactlyTheRecordedBytesOfTheVersionItWrites() {
        List<Recording> recordings = recordings();
        Map<String, Integer> checked = new LinkedHashMap<>();
        for (String name : CATALOG.recordNames()) {
            String record = name.substring(name.lastIndexOf('.') + 1);
            AvroSerde<SpecificRecordBase> serde = serde(record);
            Schema current = AvroSerde.schemaOf(serde.type());
            for (String branch : branches(current)) {
                byte[] written = serde.serialize("recorded", Fill.record(current, branch));
                List<Recording> same = recordings.stream().filter(r -> r.record().equals(record)
                        && java.util.Objects.equals(r.branch(), branch)
                        && fingerprint(r.bytes()) == Fingerprints.of(current)).toList();
                assertThat(same).as("recordings of the %s version this build writes%s", record,
                        branch == null ? "" : " (" + branch + ")").isNotEmpty();
                for (Recording r : same) {
                    assertThat(written).as("%s written by this build against %s", record, r.name())
                            .isEqualTo(r.bytes());
                }
                checked.merge(record, same.size(), Integer::sum);
            }
        }
        assertThat(checked.keySet()).containsAll(CATALOG.recordNames().stream()
                .map(n -> n.substring(n.lastIndexOf('.') + 1)).toList());
    }

    /** The policy body's record branches of {@code schema}, or one null branch for every other record. */
    static List<String> branches(Schema schema) {
        Schema.Field body = schema.getName().equals("PolicyRecord") ? schema.getField("body") : null;
        if (body == null) {
            return java.util.Collections.singletonList(null);
        }
        return body.schema().getTypes().stream().filter(t -> t.getType() == Schema.Type.RECORD)
                .map(Schema::getName).toList();
    }

    @SuppressWarnings("unchecked")
    private static AvroSerde<SpecificRecordBase> serde(String record) {
        try {
            return AvroSerdes.serde((Class<SpecificRecordBase>) Class.forName("io.actiongate.avro." + record));
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("no generated class for " + record, e);
        }
    }

    /**
     * What this build must read from a record {@link Fill} wrote with {@code writer}: the writer's sample value of
     * every field the writer had (resolved into this build's classes), the default of every field added since.
     */
    static Object expected(Schema current, Schema writer, String path, String branch) {
        if (writer.getType() == Schema.Type.UNION) {
            Schema chosen = chosenBranch(writer, branch);
            String branchPath = chosen.getType() == Schema.Type.RECORD ? path + "<" + chosen.getName() + ">" : path;
            return expected(matching(current, chosen), chosen, branchPath, branch);
        }
        switch (writer.getType()) {
            case RECORD: {
                SpecificRecordBase r = (SpecificRecordBase) SpecificData.get().newRecord(null, current);
                for (Schema.Field f : current.getFields()) {
                    Schema.Field w = writer.getField(f.name());
                    r.put(f.pos(), w == null ? SpecificData.get().getDefaultValue(f)
                            : expected(f.schema(), w.schema(), path + "." + f.name(), branch));
                }
                return r;
            }
            case ENUM: {
                String symbol = ((Enum<?>) Fill.value(writer, path, branch)).name();
                return SpecificData.get().createEnum(symbol, matching(current, writer));
            }
            case ARRAY:
                return List.of(expected(current.getElementType(), writer.getElementType(), path + "[0]", branch));
            case MAP: {
                Map<String, Object> map = new LinkedHashMap<>();
                map.put(path + "{k}", expected(current.getValueType(), writer.getValueType(), path + "{k}", branch));
                return map;
            }
            default:
                return Fill.value(writer, path, branch);
        }
    }

    /** The branch {@link Fill} took in a writer union. */
    private static Schema chosenBranch(Schema union, String branch) {
        for (Schema b : union.getTypes()) {
            if (b.getType() == Schema.Type.RECORD && b.getName().equals(branch)) {
                return b;
            }
        }
        return union.getTypes().stream().filter(b -> b.getType() != Schema.Type.NULL).findFirst().orElseThrow();
    }

    /** The branch of this build's (possibly union) schema that reads {@code writer}: same full name, or type. */
    private static Schema matching(Schema current, Schema writer) {
        if (current.getType() != Schema.Type.UNION) {
            return current;
        }
        for (Schema b : current.getTypes()) {
            boolean named = b.getType() == Schema.Type.RECORD || b.getType() == Schema.Type.ENUM;
            if (b.getType() == writer.getType() && (!named || b.getFullName().equals(writer.getFullName()))) {
                return b;
            }
        }
        throw new IllegalStateException("this build reads no " + writer.getFullName() + " in " + current);
    }
}
