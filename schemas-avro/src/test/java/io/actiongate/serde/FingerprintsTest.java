package io.actiongate.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.junit.jupiter.api.Test;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.Receipt;
import io.actiongate.fixtures.Records;
import io.actiongate.topics.Topics;

class FingerprintsTest {

    private final SchemaCatalog catalog = SchemaCatalog.released();

    @Test
    void shouldWriteTheParsingCanonicalFormExactlyAsAvroDoesWhenNamedTypesAreInlined() {
        for (String name : catalog.recordNames()) {
            for (Schema schema : catalog.versionsOf(name)) {
                assertThat(Fingerprints.parsingForm(schema, false)).as(name)
                        .isEqualTo(SchemaNormalization.toParsingForm(schema));
            }
        }
    }

    @Test
    void shouldNameTheRecordAndTheExpectedFingerprintWhenNamedTypesWereReferencedNotInlined() {
        Schema proposal = ActionProposal.getClassSchema();
        long referenced = Fingerprints.referencedFingerprint(proposal);
        assertThat(referenced).isNotEqualTo(Fingerprints.of(proposal));
        assertThatThrownBy(() -> decodeWithFingerprint(referenced))
                .isInstanceOfSatisfying(AvroDecodeException.class, e -> {
                    assertThat(e.reason()).isEqualTo(AvroDecodeException.Reason.UNKNOWN_FINGERPRINT);
                    assertThat(e.getMessage()).contains("it is ActionProposal v1 with its named types referenced")
                            .contains("expected ActionProposal v1 " + Fingerprints.wireHex(Fingerprints.of(proposal)));
                });
    }

    @Test
    void shouldNameAnotherRecordsFingerprintAndSayWhenItResemblesNothing() {
        assertThatThrownBy(() -> decodeWithFingerprint(Fingerprints.of(Receipt.getClassSchema())))
                .hasMessageContaining("it is the fingerprint of Receipt v1, another record");
        assertThatThrownBy(() -> decodeWithFingerprint(0x0123456789abcdefL))
                .hasMessageContaining("fingerprint " + Fingerprints.wireHex(0x0123456789abcdefL))
                .hasMessageContaining("resembles no released schema")
                .hasMessageContaining("expected ActionProposal v1 ");
    }

    @Test
    void shouldWriteTheFingerprintLittleEndianAsTheHeaderCarriesIt() {
        byte[] encoded = Topics.PROPOSALS.valueSerde().serializer().serialize("t", Records.proposal());
        long fingerprint = Fingerprints.of(ActionProposal.getClassSchema());
        assertThat(Fingerprints.fromHeader(encoded)).isEqualTo(fingerprint);
        assertThat(java.util.HexFormat.of().formatHex(encoded, 2, 10)).isEqualTo(Fingerprints.wireHex(fingerprint));
    }

    private static void decodeWithFingerprint(long fingerprint) {
        byte[] encoded = Topics.PROPOSALS.valueSerde().serializer().serialize("t", Records.proposal());
        for (int i = 0; i < 8; i++) {
            encoded[2 + i] = (byte) (fingerprint >>> (8 * i));
        }
        Topics.PROPOSALS.valueSerde().deserializer().deserialize("t", encoded);
    }
}
