package io.actiongate.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.specific.SpecificRecordBase;
import org.junit.jupiter.api.Test;

import io.actiongate.avro.IdentityConflict;
import io.actiongate.fixtures.Records;

class SchemaCatalogTest {

    private static final String SYNTHETIC_INDEX = SchemaCatalog.ROOT + "synthetic/index.txt";
    private static final String IDENTITY_CONFLICT = IdentityConflict.getClassSchema().getFullName();

    @Test
    void shouldGenerateEveryRecordFromAReleasedSchemaVersion() {
        // an .avsc edited in place (instead of released as a new version) fails here: old writers would no longer
        // resolve, or would resolve to a layout that was never released
        for (Class<? extends SpecificRecordBase> type : AvroSerdeTest.RECORD_TYPES) {
            Schema current = AvroSerde.schemaOf(type);
            List<Schema> released = SchemaCatalog.released().versionsOf(current.getFullName());

            // docs, defaults and logical types count; only the code generator's string-type hint does not
            assertThat(released.stream().map(SchemaCatalogTest::withoutJavaStringHints))
                    .as("%s is not one of the released versions", type.getSimpleName())
                    .contains(withoutJavaStringHints(current));
            assertThat(released.stream().map(SchemaCatalog::fingerprint))
                    .contains(SchemaCatalog.fingerprint(current));
        }
    }

    @Test
    void shouldListCommonTypesOnlyAsDependenciesNotAsRecords() {
        assertThat(SchemaCatalog.released().recordNames())
                .doesNotContain("io.actiongate.avro.Attachment", "io.actiongate.avro.Origin",
                        "io.actiongate.avro.AttemptSummary")
                .hasSize(AvroSerdeTest.RECORD_TYPES.size());
    }

    @Test
    void shouldFailClearlyForAMissingIndexOrSchema() {
        ClassLoader loader = getClass().getClassLoader();
        assertThatThrownBy(() -> SchemaCatalog.load(loader, SchemaCatalog.ROOT + "no-such-index.txt"))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("missing resource");
    }

    @Test
    void shouldKeepEveryVersionOfARecordInReleaseOrder() {
        SchemaCatalog catalog = SchemaCatalog.load(getClass().getClassLoader(), SYNTHETIC_INDEX);

        List<Schema> versions = catalog.versionsOf(IDENTITY_CONFLICT);

        assertThat(versions).hasSize(2);
        assertThat(withoutJavaStringHints(versions.get(0)))
                .isEqualTo(withoutJavaStringHints(IdentityConflict.getClassSchema()));
        assertThat(versions.get(1).getField("detector")).isNotNull();
        assertThat(SchemaCatalog.fingerprint(versions.get(1))).isNotEqualTo(SchemaCatalog.fingerprint(versions.get(0)));
    }

    @Test
    void shouldReadARecordWrittenByANewerWriterWithAnExtraDefaultedField() throws IOException {
        SchemaCatalog catalog = SchemaCatalog.load(getClass().getClassLoader(), SYNTHETIC_INDEX);
        Schema v2 = catalog.versionsOf(IDENTITY_CONFLICT).get(1);
        IdentityConflict expected = Records.identityConflict();
        GenericRecord written = new GenericData.Record(v2);
        for (Schema.Field field : IdentityConflict.getClassSchema().getFields()) {
            written.put(field.name(), expected.get(field.pos()));
        }
        written.put("detector", "reconciler");
        byte[] bytes = encode(v2, written);

        IdentityConflict read = new AvroSerde<>(IdentityConflict.class, catalog).deserialize("t", bytes);

        assertThat(read).isEqualTo(expected);
        // the released catalog does not know v2 yet: such bytes are not guessed at
        assertThat(catchDecode(bytes).reason()).isEqualTo(AvroDecodeException.Reason.UNKNOWN_FINGERPRINT);
    }

    @Test
    void shouldLetAV2ReaderReadV1RecordsWithTheDefault() throws IOException {
        SchemaCatalog catalog = SchemaCatalog.load(getClass().getClassLoader(), SYNTHETIC_INDEX);
        Schema v1 = catalog.versionsOf(IDENTITY_CONFLICT).get(0);
        Schema v2 = catalog.versionsOf(IDENTITY_CONFLICT).get(1);
        byte[] v1Bytes = AvroSerdes.serde(IdentityConflict.class).serialize("t", Records.identityConflict());

        BinaryMessageDecoder<GenericRecord> v2Reader = new BinaryMessageDecoder<>(model(), v2);
        v2Reader.addSchema(v1);
        GenericRecord read = v2Reader.decode(v1Bytes);

        assertThat(read.get("detector")).hasToString("gate");
        assertThat(read.get("offered_tool")).hasToString("delete_repo");
        assertThat(SchemaCompatibility.checkReaderWriterCompatibility(v2, v1).getType())
                .isEqualTo(SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE);
        assertThat(SchemaCompatibility.checkReaderWriterCompatibility(v1, v2).getType())
                .isEqualTo(SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE);
    }

    @Test
    void shouldReadPolicyRecordsOfV2IntoV3AndKeepV3FromV2Readers() throws IOException {
        // v3 appends NotificationRoute to the body union: every v2 record still resolves into the current class,
        // while a v2 reader cannot take a v3 record at all (readers are upgraded first; contract section 7)
        List<Schema> versions = SchemaCatalog.released().versionsOf(io.actiongate.avro.PolicyRecord.getClassSchema()
                .getFullName());
        assertThat(versions).hasSize(3);
        Schema v2 = versions.get(1);
        Schema v3 = versions.get(2);
        assertThat(SchemaCatalog.fingerprint(v3)).isEqualTo(SchemaCatalog.fingerprint(
                io.actiongate.avro.PolicyRecord.getClassSchema()));
        Schema taskV2 = v2.getField("body").schema().getTypes().stream()
                .filter(t -> t.getName().equals("TaskState")).findFirst().orElseThrow();
        GenericRecord task = new GenericData.Record(taskV2);
        task.put("task_id", "task-9");
        task.put("version", 3L);
        task.put("status", new GenericData.EnumSymbol(taskV2.getField("status").schema(), "ACTIVE"));
        task.put("org_id", "org-1");
        GenericRecord written = new GenericData.Record(v2);
        written.put("kind", "task");
        written.put("body", task);

        io.actiongate.avro.PolicyRecord read = AvroSerdes.serde(io.actiongate.avro.PolicyRecord.class)
                .deserialize("t", encode(v2, written));

        assertThat(read.getBody()).isInstanceOfSatisfying(io.actiongate.avro.TaskState.class, t -> {
            assertThat(t.getTaskId()).isEqualTo("task-9");
            assertThat(t.getOrgId()).isEqualTo("org-1");
        });
        assertThat(SchemaCompatibility.checkReaderWriterCompatibility(v3, v2).getType())
                .isEqualTo(SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE);
        assertThat(SchemaCompatibility.checkReaderWriterCompatibility(v2, v3).getType())
                .isEqualTo(SchemaCompatibility.SchemaCompatibilityType.INCOMPATIBLE);
    }

    /** The schema's JSON without the {@code avro.java.string} properties that stringType=String adds. */
    static String withoutJavaStringHints(Schema schema) {
        return schema.toString()
                .replace("{\"type\":\"string\",\"avro.java.string\":\"String\"}", "\"string\"")
                .replace(",\"avro.java.string\":\"String\"", "");
    }

    @Test
    void shouldNoticeAnInPlaceEditOfAReleasedSchema() {
        Schema released = IdentityConflict.getClassSchema();
        Schema edited = new Schema.Parser().parse(released.toString().replace(
                "\"name\":\"detected_at\"", "\"name\":\"detected_at\",\"doc\":\"edited\""));

        assertThat(withoutJavaStringHints(edited)).isNotEqualTo(withoutJavaStringHints(released));
    }

    private static AvroDecodeException catchDecode(byte[] bytes) {
        try {
            AvroSerdes.serde(IdentityConflict.class).deserialize("t", bytes);
        } catch (AvroDecodeException e) {
            return e;
        }
        throw new AssertionError("decoding must fail");
    }

    private static GenericData model() {
        GenericData model = new GenericData();
        model.addLogicalTypeConversion(new TimeConversions.TimestampMillisConversion());
        return model;
    }

    private static byte[] encode(Schema schema, GenericRecord record) throws IOException {
        ByteBuffer buffer = new BinaryMessageEncoder<GenericRecord>(model(), schema).encode(record);
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }
}
