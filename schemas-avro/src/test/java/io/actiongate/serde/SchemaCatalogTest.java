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
