package io.actiongate.approver.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

import io.actiongate.serde.AvroSerde;
import io.actiongate.serde.UnknownFormatException;

/** The approval service's state records: a type a newer service writes stops the replica, never skipped. */
class StateRecordTest {

    @Test
    void shouldStopOnARecordTypeANewerServiceWritesNamingItsRelease() {
        byte[] newer = {9, 1, 2, 3};
        RecordHeaders headers = new RecordHeaders();
        headers.add(AvroSerde.FORMAT_HEADER, "approver-state v2; actiongate 0.2.0".getBytes(StandardCharsets.UTF_8));
        StateView view = new StateView();

        assertThatThrownBy(() -> view.apply("factors/4:acme/alice", newer, headers, "chaos.approver-state-0@12"))
                .isInstanceOf(UnknownFormatException.class)
                .hasMessageContaining("stops: chaos.approver-state-0@12 holds an approval service state record of "
                        + "type 9 (approver-state v2) written by actiongate 0.2.0, which this release does not read "
                        + "(it reads record types 1 (compare-and-set), 2 (snapshot) and 3 (claim))");
        assertThat(view.keys("")).isEmpty();
        // a record too short to be one of layout 1 is skipped, as before
        assertThat(view.apply("k", new byte[] {1, 2}, null, "t")).isFalse();
    }

    @Test
    void shouldWriteAndReadLayoutOne() {
        StateRecord record = new StateRecord(StateRecord.CAS, new byte[16], 4, new byte[] {7});
        assertThat(record.bytes()).hasSize(StateRecord.HEADER + 1);
        StateRecord read = StateRecord.parse(record.bytes(), null, "t");
        assertThat(read.type()).isEqualTo(StateRecord.CAS);
        assertThat(read.version()).isEqualTo(4);
        assertThat(read.value()).containsExactly(7);
    }
}
