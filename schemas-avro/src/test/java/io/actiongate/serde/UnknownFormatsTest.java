package io.actiongate.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.avro.Schema;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

import io.actiongate.avro.IdentityConflict;
import io.actiongate.avro.Receipt;
import io.actiongate.contract.RepositoryFiles;
import io.actiongate.fixtures.Records;
import io.actiongate.kafka.KafkaFailures;

/**
 * What a role of this release makes of a record it cannot read (docs/contract.md section 3, "Versions a role does
 * not read"): a newer version of the record, named with its writer's release when the record carries
 * {@link AvroSerde#FORMAT_HEADER}, is told apart from everything else it cannot read, which stays a dead letter.
 */
class UnknownFormatsTest {

    private static final String IDENTITY_CONFLICT = IdentityConflict.getClassSchema().getFullName();

    @Test
    void shouldNameANewerVersionAndTheReleaseThatWroteIt() throws IOException {
        byte[] v2 = newerIdentityConflict();
        RecordHeaders headers = new RecordHeaders();
        headers.add(AvroSerde.FORMAT_HEADER, "IdentityConflict v2; actiongate 0.2.0".getBytes(StandardCharsets.UTF_8));

        UnknownFormatException newer = AvroSerdes.serde(IdentityConflict.class).newerVersion(v2, headers,
                "actiongate.conflicts-3@41");

        assertThat(newer).isNotNull();
        assertThat(newer.getMessage())
                .startsWith(Release.current() + " stops: actiongate.conflicts-3@41 holds IdentityConflict v2 "
                        + "(fingerprint " + Fingerprints.wireHex(SchemaCatalog.fingerprint(v2Schema())) + ") "
                        + "written by actiongate 0.2.0, which this release does not read (it reads "
                        + "IdentityConflict v1); nothing was changed")
                .doesNotContain("\n");
        assertThat(newer.writer()).isEqualTo("actiongate 0.2.0");
        assertThat(KafkaFailures.describe(new RuntimeException("wrapped", newer))).isEqualTo(newer.getMessage());
    }

    @Test
    void shouldSayANewerReleaseWroteItWhenTheRecordDoesNotNameOne() throws IOException {
        UnknownFormatException newer = AvroSerdes.serde(IdentityConflict.class).newerVersion(newerIdentityConflict(),
                new RecordHeaders(), "actiongate.conflicts-0@7");

        assertThat(newer.getMessage()).contains("holds IdentityConflict with fingerprint "
                + Fingerprints.wireHex(SchemaCatalog.fingerprint(v2Schema())) + " written by a newer actiongate "
                + "release");
        assertThat(newer.writer()).isNull();
    }

    @Test
    void shouldKeepWhatIsNotANewerVersionOutOfIt() throws IOException {
        AvroSerde<IdentityConflict> serde = AvroSerdes.serde(IdentityConflict.class);
        byte[] known = serde.serialize("t", Records.identityConflict());
        byte[] anotherRecord = AvroSerdes.serde(Receipt.class).serialize("t", Records.receipt());
        byte[] referenced = known.clone();
        long wrongForm = Fingerprints.referencedFingerprint(
                SchemaCatalog.released().versionsOf("io.actiongate.avro.ActionProposal").get(0));
        for (int i = 0; i < 8; i++) {
            referenced[2 + i] = (byte) (wrongForm >>> (8 * i));
        }

        assertThat(serde.newerVersion(known, null, "t")).as("a version it reads").isNull();
        assertThat(serde.newerVersion(anotherRecord, null, "t")).as("another record").isNull();
        assertThat(serde.newerVersion(referenced, null, "t")).as("a record's form with referenced named types")
                .isNull();
        assertThat(serde.newerVersion("{\"json\":1}".getBytes(StandardCharsets.UTF_8), null, "t"))
                .as("not single-object encoding").isNull();
        assertThat(serde.newerVersion(new byte[] {(byte) 0xC3, 1, 2}, null, "t")).as("a cut header").isNull();
    }

    @Test
    void shouldStampTheVersionAndReleaseOnRecordsOfAVersionWithASinceRelease() {
        SchemaCatalog since = SchemaCatalog.load(getClass().getClassLoader(),
                SchemaCatalog.ROOT + "synthetic-since/index.txt");
        RecordHeaders headers = new RecordHeaders();

        byte[] bytes = new AvroSerde<>(IdentityConflict.class, since, "actiongate 0.2.0")
                .serialize("t", headers, Records.identityConflict());

        assertThat(since.since(IdentityConflict.getClassSchema())).contains("0.2.0");
        assertThat(new String(headers.lastHeader(AvroSerde.FORMAT_HEADER).value(), StandardCharsets.UTF_8))
                .isEqualTo("IdentityConflict v1; actiongate 0.2.0");
        assertThat(AvroSerdes.serde(IdentityConflict.class).deserialize("t", bytes))
                .isEqualTo(Records.identityConflict());
        // the released versions have no since release: nothing is stamped today
        RecordHeaders none = new RecordHeaders();
        AvroSerdes.serde(IdentityConflict.class).serialize("t", none, Records.identityConflict());
        assertThat(none.lastHeader(AvroSerde.FORMAT_HEADER)).isNull();
    }

    @Test
    void shouldRefuseAMalformedSinceAnnotation() {
        assertThatThrownBy(() -> SchemaCatalog.load(new ClassLoader(getClass().getClassLoader()) {
            @Override
            public java.io.InputStream getResourceAsStream(String name) {
                if (name.endsWith("bad/index.txt")) {
                    return new java.io.ByteArrayInputStream("v1/common/OutcomeStatus.avsc after=0.2.0\n"
                            .getBytes(StandardCharsets.UTF_8));
                }
                return super.getResourceAsStream(name);
            }
        }, SchemaCatalog.ROOT + "bad/index.txt")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("since=RELEASE");
    }

    @Test
    void shouldPrintTheLineTheContractShows() throws IOException {
        String doc = RepositoryFiles.read("docs/contract.md");
        Matcher m = Pattern.compile("<!-- example: downgrade-line -->\\s*```\\s*\\n\\s*(actiongate [^ ]+) "
                + "(stops: .*?)\\n").matcher(doc);
        assertThat(m.find()).as("docs/contract.md section 3 shows the line").isTrue();
        String line = new UnknownFormatException("actiongate.attempts-2@118", "AttemptReservation v3 (fingerprint "
                + "3a0c...)", "actiongate 0.2.0", "AttemptReservation v1 to v2").getMessage();
        assertThat(line).isEqualTo(Release.current() + " " + m.group(2));
    }

    @Test
    void shouldKeepTheLineOneLineWhateverTheRecordSays() {
        UnknownFormatException e = new UnknownFormatException("t-0@1", "X v9\nforged: line", "actiongate\r\n9",
                "X v1");
        assertThat(e.getMessage()).doesNotContain("\n").doesNotContain("\r").contains("X v9 forged: line");
    }

    private static Schema v2Schema() {
        return SchemaCatalog.load(UnknownFormatsTest.class.getClassLoader(), SchemaCatalog.ROOT
                + "synthetic/index.txt").versionsOf(IDENTITY_CONFLICT).get(1);
    }

    /** An IdentityConflict in the synthetic v2 (one more field): a version the released catalog does not know. */
    private static byte[] newerIdentityConflict() throws IOException {
        Schema v2 = v2Schema();
        IdentityConflict values = Records.identityConflict();
        GenericRecord written = new GenericData.Record(v2);
        for (Schema.Field field : IdentityConflict.getClassSchema().getFields()) {
            written.put(field.name(), values.get(field.pos()));
        }
        written.put("detector", "reconciler");
        GenericData model = new GenericData();
        model.addLogicalTypeConversion(new TimeConversions.TimestampMillisConversion());
        ByteBuffer buffer = new BinaryMessageEncoder<GenericRecord>(model, v2).encode(written);
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }
}
