package io.actiongate.gate.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.contract.ReasonCode;
import io.actiongate.gate.IdempotencyKeys;
import io.actiongate.key.ActionKey;
import io.actiongate.serde.UnknownFormatException;

/**
 * The serde of {@code gate-actions} and its changelog. Writes layout 2: Avro single-object encoding ({@code C3 01},
 * the 8-byte little-endian CRC-64-AVRO fingerprint of {@code ActionState-v2.avsc}, Avro binary), without the
 * fields that can be derived (the layout version is the fingerprint; a derived idempotency key and the timer key the
 * phase and due time give are stored as {@code true}). Reads layout 2 and layout 1, the JSON that {@link JsonSerde}
 * wrote before (a value starting with <code>{</code>), so a changelog written by an older gate restores; a layout-1
 * value is written back as layout 2 the next time the action changes.
 */
public final class ActionStateSerde implements Serde<ActionState>, Serializer<ActionState>,
        Deserializer<ActionState> {

    /** The layout this serde writes. */
    public static final int LAYOUT = 2;
    static final Schema SCHEMA = load();
    private static final byte[] HEADER = header(SCHEMA);
    private static final Schema ACTION = SCHEMA.getField("action").schema();
    private static final Schema ORIGIN = nonNull(ACTION.getField("origin").schema());
    private static final Schema ATTACHMENT = ACTION.getField("attachments").schema().getElementType();
    private static final Schema ATTEMPT = SCHEMA.getField("attempts").schema().getElementType();
    private static final Schema ATTACHMENTS = ACTION.getField("attachments").schema();
    private static final Schema ATTEMPTS = SCHEMA.getField("attempts").schema();

    // one serde serves every task of the store, on every stream thread: no per-call state is kept here
    private final JsonSerde<ActionState> layout1 = new JsonSerde<>(ActionState.class);
    private final GenericDatumWriter<GenericRecord> writer = new GenericDatumWriter<>(SCHEMA);
    private final GenericDatumReader<GenericRecord> reader = new GenericDatumReader<>(SCHEMA);

    private static Schema load() {
        try (InputStream in = ActionStateSerde.class.getResourceAsStream("ActionState-v2.avsc")) {
            if (in == null) {
                throw new IllegalStateException("ActionState-v2.avsc is missing");
            }
            return new Schema.Parser().parse(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] header(Schema schema) {
        long fingerprint = SchemaNormalization.parsingFingerprint64(schema);
        byte[] h = new byte[10];
        h[0] = (byte) 0xC3;
        h[1] = (byte) 0x01;
        for (int i = 0; i < 8; i++) {
            h[2 + i] = (byte) (fingerprint >>> (8 * i));
        }
        return h;
    }

    private static Schema nonNull(Schema union) {
        return union.getTypes().stream().filter(t -> t.getType() != Schema.Type.NULL).findFirst().orElseThrow();
    }

    /** The timer key the gate gives a saved state in this phase with this due time, or null. */
    static String derivedTimerKey(Phase phase, Long dueAt, String actionKey) {
        Timers.Kind kind = Lifecycle.timerKind(phase);
        return kind == null || dueAt == null ? null : Timers.key(dueAt, kind, actionKey);
    }

    @Override
    public byte[] serialize(String topic, ActionState s) {
        if (s == null) {
            return null;
        }
        try {
            ByteArrayOutputStream buffer = new ByteArrayOutputStream(384);
            buffer.write(HEADER);
            BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(buffer, null);
            writer.write(record(s), encoder);
            encoder.flush();
            return buffer.toByteArray();
        } catch (IOException | RuntimeException e) {
            throw new SerializationException("cannot encode ActionState: " + e.getClass().getSimpleName());
        }
    }

    @Override
    public ActionState deserialize(String topic, byte[] data) {
        if (data == null) {
            return null;
        }
        if (data.length > 0 && data[0] == '{') {
            return layout1.deserialize(topic, data);
        }
        if (data.length < HEADER.length || !java.util.Arrays.equals(data, 0, HEADER.length, HEADER, 0,
                HEADER.length)) {
            if (data.length >= HEADER.length && data[0] == HEADER[0] && data[1] == HEADER[1]) {
                throw newerLayout(topic, data);
            }
            throw new SerializationException("cannot decode ActionState: unknown layout");
        }
        try {
            BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(data, HEADER.length,
                    data.length - HEADER.length, null);
            return state(reader.read(null, decoder));
        } catch (IOException | RuntimeException e) {
            // the message may quote stored text; keep only the type
            throw new SerializationException("cannot decode ActionState: " + e.getClass().getSimpleName());
        }
    }

    /**
     * A value in the single-object layout under another fingerprint: a layout after this one, which a newer gate
     * wrote. Such a layout starts its Avro body with the release that wrote it, a string (DESIGN.md, "Stores"): it is
     * named when it reads as one.
     */
    static UnknownFormatException newerLayout(String topic, byte[] data) {
        long fingerprint = 0;
        for (int i = 0; i < 8; i++) {
            fingerprint |= (data[2 + i] & 0xffL) << (8 * i);
        }
        String writer = null;
        try {
            BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(data, HEADER.length,
                    data.length - HEADER.length, null);
            long length = decoder.readLong();
            if (length > 0 && length <= 64) {
                String release = DecoderFactory.get().binaryDecoder(data, HEADER.length, data.length - HEADER.length,
                        null).readString();
                if (release.startsWith("actiongate ") && release.chars().allMatch(c -> c >= 0x20 && c < 0x7f)) {
                    writer = release;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not a string: the release is not named
        }
        return new UnknownFormatException(topic == null ? "gate-actions" : topic, "ActionState in the layout of "
                + "fingerprint " + io.actiongate.serde.Fingerprints.wireHex(fingerprint), writer,
                "ActionState layouts 1 (JSON) and " + LAYOUT);
    }

    private static GenericRecord record(ActionState s) {
        ActionState.Action a = s.action();
        GenericRecord action = new GenericData.Record(ACTION);
        action.put("task_id", a.taskId());
        action.put("tool_call_id", a.toolCallId());
        action.put("task_version", a.taskVersion());
        action.put("org_id", a.orgId());
        action.put("principal_id", a.principalId());
        action.put("profile_id", a.profileId());
        action.put("authorization_epoch", a.authorizationEpoch());
        action.put("provider", a.provider());
        action.put("operation", a.operation());
        action.put("tool_name", a.toolName());
        action.put("tool_schema_hash", a.toolSchemaHash());
        action.put("input_json", a.inputJson());
        action.put("input_digest", a.inputDigest());
        action.put("summary", a.summary());
        action.put("idempotency_key", orDerived(a.idempotencyKey(), IdempotencyKeys.derived(a.key())));
        action.put("business_operation_id", a.businessOperationId());
        if (a.origin() != null) {
            GenericRecord o = new GenericData.Record(ORIGIN);
            o.put("conversation_id", a.origin().conversationId());
            o.put("turn_id", a.origin().turnId());
            o.put("assistant_message_id", a.origin().assistantMessageId());
            o.put("human_message_id", a.origin().humanMessageId());
            action.put("origin", o);
        }
        List<GenericRecord> attachments = new GenericData.Array<>(a.attachments().size(), ATTACHMENTS);
        for (ActionState.AttachmentRef r : a.attachments()) {
            GenericRecord g = new GenericData.Record(ATTACHMENT);
            g.put("object_key", r.objectKey());
            g.put("sha256", r.sha256());
            g.put("size_bytes", r.sizeBytes());
            g.put("content_type", r.contentType());
            g.put("owner_invocation_id", r.ownerInvocationId());
            attachments.add(g);
        }
        action.put("attachments", attachments);

        GenericRecord g = new GenericData.Record(SCHEMA);
        g.put("action", action);
        g.put("phase", s.phase().name());
        g.put("reason_code", s.reasonCode() == null ? null : s.reasonCode().name());
        g.put("reason", s.reason());
        g.put("action_digest", s.actionDigest());
        g.put("decision_id", s.decisionId());
        g.put("approval_expires_at", s.approvalExpiresAt());
        g.put("approved_by", s.approvedBy());
        List<GenericRecord> attempts = new GenericData.Array<>(s.attempts().size(), ATTEMPTS);
        for (ActionState.AttemptRecord r : s.attempts()) {
            GenericRecord t = new GenericData.Record(ATTEMPT);
            t.put("attempt", r.attempt());
            t.put("reserved_at", r.reservedAt());
            t.put("lease_expires_at", r.leaseExpiresAt());
            t.put("status", r.status() == null ? null : r.status().name());
            t.put("dispatched", r.dispatched());
            t.put("http_status", r.httpStatus());
            t.put("error_code", r.errorCode());
            t.put("started_at", r.startedAt());
            t.put("finished_at", r.finishedAt());
            attempts.add(t);
        }
        g.put("attempts", attempts);
        g.put("provider_receipt_id", s.providerReceiptId());
        g.put("resolved_by", s.resolvedBy() == null ? null : s.resolvedBy().name());
        g.put("resolution_id", s.resolutionId());
        g.put("timer_key", orDerived(s.timerKey(), derivedTimerKey(s.phase(), s.dueAt(), s.key())));
        g.put("due_at", s.dueAt());
        g.put("created_at", s.createdAt());
        g.put("updated_at", s.updatedAt());
        g.put("trace", s.trace());
        return g;
    }

    /** Null for none, {@code true} for the derived value, else the value itself. */
    private static Object orDerived(String value, String derived) {
        return value == null ? null : value.equals(derived) ? Boolean.TRUE : value;
    }

    private static String fromDerived(Object stored, String derived) {
        return stored == null ? null : stored instanceof Boolean ? derived : stored.toString();
    }

    private static ActionState state(GenericRecord g) {
        GenericRecord a = (GenericRecord) g.get("action");
        GenericRecord o = (GenericRecord) a.get("origin");
        ActionState.OriginRef origin = o == null ? null : new ActionState.OriginRef(str(o, "conversation_id"),
                str(o, "turn_id"), str(o, "assistant_message_id"), str(o, "human_message_id"));
        List<?> storedAttachments = (List<?>) a.get("attachments");
        List<ActionState.AttachmentRef> attachments = new ArrayList<>(storedAttachments.size());
        for (Object item : storedAttachments) {
            GenericRecord r = (GenericRecord) item;
            attachments.add(new ActionState.AttachmentRef(str(r, "object_key"), str(r, "sha256"),
                    (Long) r.get("size_bytes"), str(r, "content_type"), str(r, "owner_invocation_id")));
        }
        String taskId = str(a, "task_id");
        String toolCallId = str(a, "tool_call_id");
        String key = ActionKey.format(taskId, toolCallId);
        Object storedKey = a.get("idempotency_key");
        ActionState.Action action = new ActionState.Action(taskId, toolCallId, (Long) a.get("task_version"),
                str(a, "org_id"), str(a, "principal_id"), str(a, "profile_id"), (Long) a.get("authorization_epoch"),
                str(a, "provider"), str(a, "operation"), str(a, "tool_name"), str(a, "tool_schema_hash"),
                str(a, "input_json"), str(a, "input_digest"), str(a, "summary"),
                storedKey instanceof Boolean ? IdempotencyKeys.derived(key) : fromDerived(storedKey, null),
                str(a, "business_operation_id"), origin, attachments);
        List<?> storedAttempts = (List<?>) g.get("attempts");
        List<ActionState.AttemptRecord> attempts = new ArrayList<>(storedAttempts.size());
        for (Object item : storedAttempts) {
            GenericRecord r = (GenericRecord) item;
            String status = str(r, "status");
            attempts.add(new ActionState.AttemptRecord((Integer) r.get("attempt"), (Long) r.get("reserved_at"),
                    (Long) r.get("lease_expires_at"),
                    status == null ? null : DispatchResult.Status.valueOf(status), (Boolean) r.get("dispatched"),
                    (Integer) r.get("http_status"), str(r, "error_code"), (Long) r.get("started_at"),
                    (Long) r.get("finished_at")));
        }
        Phase phase = Phase.valueOf(str(g, "phase"));
        Long dueAt = (Long) g.get("due_at");
        String reasonCode = str(g, "reason_code");
        String resolvedBy = str(g, "resolved_by");
        Object storedTimer = g.get("timer_key");
        String timerKey = storedTimer instanceof Boolean ? derivedTimerKey(phase, dueAt, key)
                : fromDerived(storedTimer, null);
        return new ActionState(LAYOUT, action, phase, reasonCode == null ? null : ReasonCode.valueOf(reasonCode),
                str(g, "reason"), str(g, "action_digest"), str(g, "decision_id"), (Long) g.get("approval_expires_at"),
                str(g, "approved_by"), attempts, str(g, "provider_receipt_id"),
                resolvedBy == null ? null : ActionState.Resolver.valueOf(resolvedBy), str(g, "resolution_id"),
                timerKey, dueAt, (Long) g.get("created_at"), (Long) g.get("updated_at"), trace(g.get("trace")));
    }

    private static String str(GenericRecord r, String field) {
        Object v = r.get(field);
        return v == null ? null : v.toString();
    }

    private static Map<String, String> trace(Object stored) {
        if (stored == null) {
            return null;
        }
        Map<String, String> out = new HashMap<>();
        ((Map<?, ?>) stored).forEach((k, v) -> out.put(k.toString(), v.toString()));
        return out;
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        // nothing to configure
    }

    @Override
    public void close() {
        // nothing to release
    }

    @Override
    public Serializer<ActionState> serializer() {
        return this;
    }

    @Override
    public Deserializer<ActionState> deserializer() {
        return this;
    }
}
