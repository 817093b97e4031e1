package io.actiongate.approver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.approver.state.KafkaState;
import io.actiongate.approver.state.SharedState;
import io.actiongate.approver.stepup.StepUpStore;
import io.actiongate.approver.web.Sealer;

/**
 * The operator's way out for a person who lost every step-up factor ({@code actiongate approver reset-factors}):
 * their factors are replaced by an empty record in the shared state, so every replica sees none, and the person
 * signs in fresh to enrol again (the first-factor rule). Every reset is an audit record: a line on
 * {@code io.actiongate.approver.audit} and a record {@code audit/reset-factors/...} on the state topic, which
 * compaction keeps (its key is unique).
 */
public final class FactorReset {

    private static final Logger AUDIT = LoggerFactory.getLogger("io.actiongate.approver.audit");
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String AUDIT_PREFIX = "audit/reset-factors/";

    /** What a reset did. */
    public record Result(boolean hadFactors, String auditKey) {
    }

    private FactorReset() {
    }

    /**
     * Against the existing state topic {@code stateTopic} of the deployment at {@code bootstrapServers}, with the
     * {@code kafka.*} client settings {@code kafkaClient} (prefix removed). The topic is never created: when it is
     * missing this throws and nothing is written.
     */
    public static Result run(String bootstrapServers, Map<String, String> kafkaClient, String stateTopic, String org,
                             String subject, String operator, String reason) throws InterruptedException {
        try (KafkaState state = KafkaState.existing(bootstrapServers, kafkaClient, stateTopic)) {
            if (!state.awaitCaughtUp(Duration.ofSeconds(60))) {
                throw new IllegalStateException("the state topic " + state.topic() + " was not read in 60 s");
            }
            return run(state, org, subject, operator, reason, Instant.now());
        }
    }

    static Result run(SharedState state, String org, String subject, String operator, String reason, Instant now) {
        if (org == null || org.isBlank() || subject == null || subject.isBlank()) {
            throw new IllegalArgumentException("an org and a subject are required");
        }
        // no TOTP secret is opened or sealed by a reset: any key will do
        boolean had = new StepUpStore(state, Sealer.random()).reset(org, subject);
        Map<String, Object> record = new LinkedHashMap<>();
        record.put("at", now.toString());
        record.put("org", org);
        record.put("subject", subject);
        record.put("operator", operator);
        record.put("reason", reason);
        record.put("had_factors", had);
        String key = AUDIT_PREFIX + now.toEpochMilli() + "/" + org.length() + ":" + org + "/" + subject;
        try {
            state.compareAndSet(key, 0, JSON.writeValueAsBytes(record));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        AUDIT.info("reset factors subject={} org={} operator={} had_factors={} reason={}", safe(subject), safe(org),
                safe(operator), had, safe(reason));
        return new Result(had, key);
    }

    private static String safe(String v) {
        if (v == null) {
            return "-";
        }
        String s = v.replaceAll("[^\\x21-\\x7E]", "?");
        return s.length() > 160 ? s.substring(0, 160) + "..." : s;
    }
}
