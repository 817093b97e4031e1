package io.actiongate.executor;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.actiongate.avro.AttemptReservation;
import io.actiongate.key.ActionKey;
import io.actiongate.topics.Topics;

/** Test reservations. */
final class Reservations {

    private Reservations() {
    }

    static AttemptReservation reservation(String callId, String provider, Instant leaseExpiresAt) {
        return AttemptReservation.newBuilder()
                .setTaskId("T-1")
                .setToolCallId(callId)
                .setAttempt(1)
                .setIdempotencyKey("idem-" + callId)
                .setOrgId("acme")
                .setProvider(provider)
                .setOperation("send_email")
                .setToolName("send_email")
                .setInputJson("{\"to\":\"a@example.com\"}")
                .setAttachments(List.of())
                .setActionDigest("sha256:00")
                .setToolSchemaHash("sha256:11")
                .setReservedAt(leaseExpiresAt.minus(Duration.ofMinutes(1)))
                .setLeaseExpiresAt(leaseExpiresAt)
                .build();
    }

    static AttemptReservation live(String callId, String provider) {
        return reservation(callId, provider, Instant.now().plus(Duration.ofMinutes(5)));
    }

    static byte[] encode(AttemptReservation reservation) {
        return Topics.ATTEMPTS.valueSerde().serializer().serialize("attempts", reservation);
    }

    static String key(AttemptReservation reservation) {
        return ActionKey.format(reservation.getTaskId(), reservation.getToolCallId());
    }
}
