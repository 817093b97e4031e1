package io.actiongate.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageEncoder;
import org.junit.jupiter.api.Test;

import io.actiongate.avro.AttemptReservation;
import io.actiongate.connector.spi.DispatchRequest;
import io.actiongate.serde.SchemaCatalog;
import io.actiongate.topics.Topics;

/** What the executor hands a connector of a reservation: the approval's metadata when the reservation has it. */
class ReservationRequestTest {

    @Test
    void shouldPassTheApprovalsDecisionApproverAndSummaryToTheConnector() {
        AttemptReservation r = AttemptReservation.newBuilder(Reservations.live("c-1", "mcp"))
                .setDecisionId("d-0001").setApprovedBy("alice@example.com")
                .setSummary("Tell ops that release 4.2 is live").build();
        AttemptReservation read = Topics.ATTEMPTS.valueSerde().deserializer()
                .deserialize("actiongate.attempts", Reservations.encode(r));

        DispatchRequest request = DispatchLoop.toRequest(read);

        assertThat(request.decisionId()).isEqualTo("d-0001");
        assertThat(request.approvedBy()).isEqualTo("alice@example.com");
        assertThat(request.summary()).isEqualTo("Tell ops that release 4.2 is live");
        assertThat(request.actionDigest()).isEqualTo("sha256:00");
    }

    @Test
    void shouldStillDispatchAReservationWrittenBeforeV2WithoutTheApprovalMetadata() throws Exception {
        Schema v1 = SchemaCatalog.released().versionsOf(AttemptReservation.getClassSchema().getFullName()).get(0);
        assertThat(v1.getField("decision_id")).as("v1 is the schema without the approval metadata").isNull();
        long lease = Instant.now().plusSeconds(300).toEpochMilli();
        GenericRecord old = new GenericData.Record(v1);
        old.put("task_id", "T-1");
        old.put("tool_call_id", "c-1");
        old.put("attempt", 1);
        old.put("idempotency_key", "idem-c-1");
        old.put("org_id", "acme");
        old.put("provider", "mcp");
        old.put("operation", "sandbox/post_update");
        old.put("tool_name", "post_update");
        old.put("input_json", "{\"text\":\"hi\"}");
        old.put("attachments", List.of());
        old.put("action_digest", "sha256:00");
        old.put("tool_schema_hash", "sha256:11");
        old.put("reserved_at", lease - 60_000);
        old.put("lease_expires_at", lease);
        ByteBuffer bytes = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), v1).encode(old);
        byte[] wire = new byte[bytes.remaining()];
        bytes.get(wire);

        AttemptReservation read = Topics.ATTEMPTS.valueSerde().deserializer().deserialize("actiongate.attempts", wire);
        DispatchRequest request = DispatchLoop.toRequest(read);

        assertThat(request.idempotencyKey()).isEqualTo("idem-c-1");
        assertThat(request.inputJson()).isEqualTo("{\"text\":\"hi\"}");
        assertThat(request.decisionId()).isNull();
        assertThat(request.approvedBy()).isNull();
        assertThat(request.summary()).isNull();
    }
}
