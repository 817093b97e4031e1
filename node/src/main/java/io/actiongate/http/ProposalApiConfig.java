package io.actiongate.http;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * The keys of {@code POST /v1/proposals} and of the long-polling {@code GET /v1/actions/...?wait=}: served by a
 * node that runs the gate role once {@value #TOKENS_FILE_CONFIG} names the tool hosts' tokens.
 */
public final class ProposalApiConfig extends AbstractConfig {

    public static final String TOKENS_FILE_CONFIG = "http.proposals.tokens.file";
    public static final String TOKENS_FILE_DOC = "File (a mounted secret) of the tool hosts allowed to POST "
            + "/v1/proposals, in the MCP gateway's format: one host a line, TOKEN PRINCIPAL_ID ORG_ID PROFILE_ID "
            + "(token of 16 characters or more; # comments). The proposal's org_id, principal_id and profile_id come "
            + "from the matching line, never from the body. The same token reads that org's actions on GET "
            + "/v1/actions. Unset: POST /v1/proposals is not served.";

    public static final String REVIEW_URL_CONFIG = "http.proposals.review.url";
    public static final String REVIEW_URL_DOC = "The review page a WAITING_APPROVAL answer points to: {task_id} and "
            + "{tool_call_id} are filled in. Default: approver.public.url + /review/{task_id}/{tool_call_id}, or no "
            + "review_url when neither is set.";

    public static final String ANSWER_TIMEOUT_CONFIG = "http.proposals.answer.timeout.ms";
    public static final String ANSWER_TIMEOUT_DOC = "How long POST /v1/proposals waits for the action's first "
            + "receipt before answering 202 PROPOSED.";

    public static final String MAX_BODY_CONFIG = "http.proposals.max.body.bytes";
    public static final String MAX_BODY_DOC = "Largest request body POST /v1/proposals reads; a larger one is "
            + "refused (400 BODY_TOO_LARGE) without being read.";

    public static final String MAX_WAIT_CONFIG = "http.actions.max.wait.ms";
    public static final String MAX_WAIT_DOC = "Longest ?wait= a GET /v1/actions/... long poll may ask for; a longer "
            + "one is cut to this.";

    public static final String MAX_WAITERS_CONFIG = "http.actions.max.waiters";
    public static final String MAX_WAITERS_DOC = "How many long polls and proposal answers may wait at once; past "
            + "that a request is answered 503 at once.";

    static final String APPROVER_PUBLIC_URL = "approver.public.url";

    public static final ConfigDef DEF = new ConfigDef()
            .define(TOKENS_FILE_CONFIG, Type.STRING, "", Importance.HIGH, TOKENS_FILE_DOC)
            .define(REVIEW_URL_CONFIG, Type.STRING, "", Importance.MEDIUM, REVIEW_URL_DOC)
            .define(ANSWER_TIMEOUT_CONFIG, Type.LONG, 5_000L, ConfigDef.Range.between(1, 60_000), Importance.MEDIUM,
                    ANSWER_TIMEOUT_DOC)
            .define(MAX_BODY_CONFIG, Type.INT, 262_144, ConfigDef.Range.between(1_024, 16 * 1_048_576),
                    Importance.LOW, MAX_BODY_DOC)
            .define(MAX_WAIT_CONFIG, Type.LONG, 60_000L, ConfigDef.Range.between(0, 600_000), Importance.LOW,
                    MAX_WAIT_DOC)
            .define(MAX_WAITERS_CONFIG, Type.INT, 1_000, ConfigDef.Range.between(1, 100_000), Importance.LOW,
                    MAX_WAITERS_DOC);

    /** Every key this class reads. */
    public static final List<String> KEYS = List.of(TOKENS_FILE_CONFIG, REVIEW_URL_CONFIG, ANSWER_TIMEOUT_CONFIG,
            MAX_BODY_CONFIG, MAX_WAIT_CONFIG, MAX_WAITERS_CONFIG);

    private final String approverPublicUrl;

    public ProposalApiConfig(Map<String, ?> originals) {
        super(DEF, originals, false);
        Object approver = originals.get(APPROVER_PUBLIC_URL);
        this.approverPublicUrl = approver == null ? "" : approver.toString().strip();
    }

    /** The host tokens file, or null when POST /v1/proposals is off. */
    public Path tokensFile() {
        String file = getString(TOKENS_FILE_CONFIG).strip();
        return file.isEmpty() ? null : Path.of(file);
    }

    /** The review URL template, or null for none. */
    public String reviewUrl() {
        String url = getString(REVIEW_URL_CONFIG).strip();
        if (!url.isEmpty()) {
            return url;
        }
        if (approverPublicUrl.isEmpty()) {
            return null;
        }
        String origin = approverPublicUrl.endsWith("/") ? approverPublicUrl.substring(0, approverPublicUrl.length() - 1)
                : approverPublicUrl;
        return origin + "/review/{task_id}/{tool_call_id}";
    }

    /** Whether {@value #REVIEW_URL_CONFIG} is set (then nothing overrides it). */
    boolean reviewUrlConfigured() {
        return !getString(REVIEW_URL_CONFIG).isBlank();
    }

    public Duration answerTimeout() {
        return Duration.ofMillis(getLong(ANSWER_TIMEOUT_CONFIG));
    }

    public int maxBodyBytes() {
        return getInt(MAX_BODY_CONFIG);
    }

    public Duration maxWait() {
        return Duration.ofMillis(getLong(MAX_WAIT_CONFIG));
    }

    public int maxWaiters() {
        return getInt(MAX_WAITERS_CONFIG);
    }
}
