package io.actiongate.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecordBase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.AttemptOutcome;
import io.actiongate.avro.AttemptReservation;
import io.actiongate.avro.DeadLetter;
import io.actiongate.avro.Decision;
import io.actiongate.avro.IdentityConflict;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.Reconciliation;
import io.actiongate.avro.UnknownOutcome;
import io.actiongate.fixtures.Records;
import io.actiongate.serde.AvroDecodeException.Reason;

class AvroSerdeTest {

    private static final String TOPIC = "actiongate.test";

    /** Every top-level contract record; a record added to the catalog must be added here (checked below). */
    static final List<Class<? extends SpecificRecordBase>> RECORD_TYPES = List.of(
            ActionProposal.class, Decision.class, PolicyRecord.class, AttemptReservation.class,
            AttemptOutcome.class, UnknownOutcome.class, Reconciliation.class, Receipt.class,
            IdentityConflict.class, DeadLetter.class);

    static Stream<Arguments> everyRecord() {
        List<Arguments> all = new ArrayList<>();
        all.add(Arguments.of("ActionProposal", Records.proposal()));
        all.add(Arguments.of("Decision", Records.decision()));
        for (PolicyRecord policy : Records.policyRecords()) {
            all.add(Arguments.of("PolicyRecord/" + policy.getBody().getClass().getSimpleName(), policy));
        }
        all.add(Arguments.of("AttemptReservation", Records.reservation()));
        all.add(Arguments.of("AttemptOutcome", Records.outcome()));
        all.add(Arguments.of("UnknownOutcome", Records.unknownOutcome()));
        all.add(Arguments.of("Reconciliation", Records.reconciliation()));
        all.add(Arguments.of("Receipt", Records.receipt()));
        all.add(Arguments.of("IdentityConflict", Records.identityConflict()));
        all.add(Arguments.of("DeadLetter", Records.deadLetter()));
        return all.stream();
    }

    @SuppressWarnings("unchecked")
    private static <T extends SpecificRecordBase> AvroSerde<T> serdeFor(T record) {
        return AvroSerdes.serde((Class<T>) record.getClass());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyRecord")
    void shouldRoundTripEveryRecordType(String name, SpecificRecordBase record) {
        AvroSerde<SpecificRecordBase> serde = serdeFor(record);

        byte[] bytes = serde.serializer().serialize(TOPIC, record);
        SpecificRecordBase back = serde.deserializer().deserialize(TOPIC, bytes);

        assertThat(back).isEqualTo(record).isNotSameAs(record);
        assertThat(Arrays.copyOf(bytes, 2)).containsExactly(0xC3, 0x01);
        assertThat(ByteBuffer.wrap(bytes, 2, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong())
                .isEqualTo(SchemaCatalog.fingerprint(record.getSchema()));
    }

    @Test
    void shouldCoverEveryBodyOfThePolicyUnion() {
        Schema union = PolicyRecord.getClassSchema().getField("body").schema();
        Set<String> covered = Records.policyRecords().stream()
                .map(p -> ((SpecificRecordBase) p.getBody()).getSchema().getFullName())
                .collect(Collectors.toSet());

        assertThat(covered).hasSize(7)
                .isEqualTo(union.getTypes().stream().map(Schema::getFullName).collect(Collectors.toSet()));
    }

    @Test
    void shouldCoverEveryReleasedRecordType() {
        assertThat(RECORD_TYPES.stream().map(t -> AvroSerde.schemaOf(t).getFullName()))
                .containsExactlyInAnyOrderElementsOf(SchemaCatalog.released().recordNames());
    }

    @Test
    void shouldCompareDecodedReceiptsByTheirAttemptTimestamps() {
        // a decoded array is a GenericData.Array compared through GenericData.get(); AvroSetup teaches it Instants
        AvroSerde<Receipt> serde = AvroSerdes.serde(Receipt.class);
        Receipt receipt = Records.receipt();
        Receipt later = Receipt.newBuilder(receipt).setAttempts(List.of(
                io.actiongate.avro.AttemptSummary.newBuilder(receipt.getAttempts().get(0))
                        .setStartedAt(Records.T0.plusMillis(1)).build(),
                receipt.getAttempts().get(1))).build();

        Receipt decoded = serde.deserialize(TOPIC, serde.serialize(TOPIC, receipt));
        Receipt decodedLater = serde.deserialize(TOPIC, serde.serialize(TOPIC, later));

        assertThat(decoded).isEqualTo(serde.deserialize(TOPIC, serde.serialize(TOPIC, receipt)));
        assertThat(decoded).isNotEqualTo(decodedLater);
        assertThat(decoded.hashCode()).isEqualTo(receipt.hashCode());
    }

    @Test
    void shouldTrustExactlyTheGeneratedContractPackage() {
        assertThat(AvroSetup.isContractClass(Receipt.class)).isTrue();
        assertThat(AvroSetup.isContractClass(String.class)).isFalse();
        assertThat(AvroSetup.isContractClass(AvroSerde.class)).isFalse();
    }

    @Test
    void shouldMapNullToNullBothWays() {
        AvroSerde<Receipt> serde = AvroSerdes.serde(Receipt.class);

        assertThat(serde.serialize(TOPIC, null)).isNull();
        assertThat(serde.deserialize(TOPIC, null)).isNull();
    }

    @Test
    void shouldShareOneSerdePerType() {
        assertThat(AvroSerdes.serde(Receipt.class)).isSameAs(AvroSerdes.serde(Receipt.class));
        assertThat(AvroSerdes.serde(Receipt.class).type()).isEqualTo(Receipt.class);
    }

    @Test
    void shouldRejectAnUnknownFingerprint() {
        byte[] bytes = AvroSerdes.serde(Receipt.class).serialize(TOPIC, Records.receipt());
        bytes[5] ^= 0x5A;

        assertThat(decodeFailure(Receipt.class, bytes).reason()).isEqualTo(Reason.UNKNOWN_FINGERPRINT);
    }

    @Test
    void shouldRejectAnotherRecordTypeAsUnknownFingerprint() {
        byte[] outcome = AvroSerdes.serde(AttemptOutcome.class).serialize(TOPIC, Records.outcome());

        AvroDecodeException e = decodeFailure(Receipt.class, outcome);

        assertThat(e.reason()).isEqualTo(Reason.UNKNOWN_FINGERPRINT);
        assertThat(e.getMessage()).contains("Receipt");
    }

    @Test
    void shouldRejectATruncatedPayloadAtEveryCut() {
        byte[] bytes = AvroSerdes.serde(ActionProposal.class).serialize(TOPIC, Records.proposal());

        for (int length = 2; length < bytes.length; length++) {
            byte[] cut = Arrays.copyOf(bytes, length);
            assertThat(decodeFailure(ActionProposal.class, cut).reason()).as("cut at %d", length)
                    .isEqualTo(Reason.TRUNCATED);
        }
    }

    @Test
    void shouldRejectBytesWithoutTheMarker() {
        byte[] json = "{\"task_id\":\"task-1\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] wrongVersion = AvroSerdes.serde(Receipt.class).serialize(TOPIC, Records.receipt());
        wrongVersion[1] = 0x02;

        for (byte[] garbage : List.of(json, new byte[0], new byte[] {(byte) 0xC3}, wrongVersion,
                new byte[] {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0})) {
            assertThat(decodeFailure(Receipt.class, garbage).reason()).isEqualTo(Reason.BAD_MARKER);
        }
    }

    @Test
    void shouldRejectBytesThatContradictTheWriterSchemaAsMalformed() throws IOException {
        byte[] header = Arrays.copyOf(AvroSerdes.serde(IdentityConflict.class)
                .serialize(TOPIC, Records.identityConflict()), 10);
        // task_id's length as a zig-zag varint of -1
        byte[] negativeLength = Arrays.copyOf(header, 11);
        negativeLength[10] = 0x01;

        assertThat(decodeFailure(IdentityConflict.class, negativeLength).reason()).isEqualTo(Reason.MALFORMED);
    }

    @Test
    void shouldNotPutThePayloadIntoTheErrorMessage() {
        byte[] bytes = AvroSerdes.serde(UnknownOutcome.class).serialize(TOPIC, Records.unknownOutcome());
        byte[] cut = Arrays.copyOf(bytes, bytes.length - 3);

        assertThat(decodeFailure(UnknownOutcome.class, cut).getMessage())
                .doesNotContain("channel").doesNotContain("ops").doesNotContain("idem-1");
    }

    private static <T extends SpecificRecordBase> AvroDecodeException decodeFailure(Class<T> type, byte[] bytes) {
        AvroDecodeException e = catchThrowableOfType(AvroDecodeException.class,
                () -> AvroSerdes.serde(type).deserialize(TOPIC, bytes));
        assertThat(e).as("decoding must fail").isNotNull();
        return e;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyRecord")
    void shouldReadARecordWrittenWithTheOldestSchemaThatHoldsItByTheGenericEncoder(String name,
            SpecificRecordBase record) throws IOException {
        // v1 for most; a body that a later version added (PolicyRecord v3's NotificationRoute) with that version
        GenericData model = new GenericData();
        model.addLogicalTypeConversion(new org.apache.avro.data.TimeConversions.TimestampMillisConversion());
        Schema v1 = null;
        GenericRecord generic = null;
        for (Schema version : SchemaCatalog.released().versionsOf(record.getSchema().getFullName())) {
            try {
                generic = toGeneric(record, version, model);
                v1 = version;
                break;
            } catch (org.apache.avro.AvroTypeException e) {
                // this version has no branch for the record's body: try the next one
            }
        }
        assertThat(v1).as("a released version holds %s", name).isNotNull();
        if (!(record instanceof PolicyRecord p && p.getBody() instanceof io.actiongate.avro.NotificationRoute)) {
            assertThat(v1).isSameAs(SchemaCatalog.released().versionsOf(record.getSchema().getFullName()).get(0));
        }
        BinaryMessageEncoder<GenericRecord> encoder = new BinaryMessageEncoder<>(model, v1);

        ByteBuffer encoded = encoder.encode(generic);
        byte[] bytes = new byte[encoded.remaining()];
        encoded.get(bytes);

        assertThat((Object) serdeFor(record).deserialize(TOPIC, bytes)).isEqualTo(record);
    }

    /** The record as a generic record of {@code schema}, by way of Avro's own JSON-free deep copy. */
    private static GenericRecord toGeneric(SpecificRecordBase record, Schema schema, GenericData model)
            throws IOException {
        // write with the specific datum writer, read back generically with the v1 schema
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        org.apache.avro.io.BinaryEncoder enc = org.apache.avro.io.EncoderFactory.get().binaryEncoder(out, null);
        new org.apache.avro.specific.SpecificDatumWriter<SpecificRecordBase>(record.getSchema(),
                SpecificData.getForSchema(record.getSchema())).write(record, enc);
        enc.flush();
        org.apache.avro.io.BinaryDecoder dec = org.apache.avro.io.DecoderFactory.get()
                .binaryDecoder(out.toByteArray(), null);
        return new org.apache.avro.generic.GenericDatumReader<GenericRecord>(record.getSchema(), schema, model)
                .read(null, dec);
    }

    @Test
    void shouldResolveOnlyReleasedFingerprints() {
        for (Class<? extends SpecificRecordBase> type : RECORD_TYPES) {
            String name = AvroSerde.schemaOf(type).getFullName();
            assertThat(SchemaCatalog.released().versionsOf(name)).as(name).isNotEmpty();
        }
        assertThat(SchemaCatalog.released().versionsOf("io.actiongate.avro.NoSuchRecord")).isEmpty();
    }

    private static Set<Long> fingerprints(List<Schema> schemas) {
        return schemas.stream().map(SchemaCatalog::fingerprint).collect(Collectors.toSet());
    }

    @Test
    void shouldKeepTheFingerprintsOfTheCatalogDistinctPerRecord() {
        for (String name : SchemaCatalog.released().recordNames()) {
            List<Schema> versions = SchemaCatalog.released().versionsOf(name);
            assertThat(fingerprints(versions)).as(name).hasSameSizeAs(versions);
        }
    }
}
