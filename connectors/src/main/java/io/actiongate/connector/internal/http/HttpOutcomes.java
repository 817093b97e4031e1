package io.actiongate.connector.internal.http;

import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.ErrorCodes;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import io.actiongate.secrets.Redaction;

/**
 * The outcome table of docs/contract.md section 5 for HTTP-style connectors, in one place:
 * <pre>
 * 2xx, body passes the domain checks     SUCCEEDED
 * 2xx, body not the documented shape    UNKNOWN (UNEXPECTED_RESPONSE): the provider may or may not have acted
 * 429, retry_at within the cap          RETRYABLE (RATE_LIMITED), retry_at from the provider's header,
 *                                       or now + default delay when it sent none we can read
 * 429, retry_at beyond the cap          FAILED (RATE_LIMITED)
 * other 4xx                             FAILED (PROVIDER_REJECTED)
 * 5xx                                   UNKNOWN (PROVIDER_ERROR)
 * 1xx, 3xx                              UNKNOWN (UNEXPECTED_RESPONSE): a 303 after a POST means it acted
 * refused / connect timeout             RETRYABLE, dispatched=false
 * timeout, reset after sending          UNKNOWN
 * </pre>
 */
public final class HttpOutcomes {

    /** Used when a 429 carries no readable retry time: short, since the provider gave no hint. */
    public static final Duration DEFAULT_RETRY_DELAY = Duration.ofSeconds(1);
    public static final Duration DEFAULT_RETRY_CAP = Duration.ofMinutes(10);

    private final Duration retryCap;
    private final Clock clock;
    private final Collection<String> secrets;

    public HttpOutcomes(Duration retryCap, Clock clock, Collection<String> secrets) {
        this.retryCap = retryCap;
        this.clock = clock;
        this.secrets = secrets.stream().filter(s -> s != null && !s.isEmpty()).toList();
    }

    public Instant now() {
        return clock.instant();
    }

    /**
     * What a connector's domain checks made of a 2xx body: the documented shape (with the provider's receipt id, or
     * null when the id is not of the provider's documented form, so it is not copied), or not (with a short,
     * value-free description of what is wrong).
     */
    public record SuccessBody(boolean documented, String receiptId, String problem) {

        public static SuccessBody documented(String receiptId) {
            return new SuccessBody(true, receiptId, null);
        }

        public static SuccessBody undocumented(String problem) {
            return new SuccessBody(false, null, problem);
        }
    }

    /**
     * Maps an answered request. {@code retryAt} is what the provider's rate-limit headers say (already parsed);
     * {@code success} is the connector's reading of the body, used only for a 2xx: SUCCEEDED needs the documented
     * shape, anything else is UNKNOWN (then reconciled), never SUCCEEDED.
     */
    public DispatchResult forResponse(int status, Optional<Instant> retryAt, SuccessBody success, byte[] body) {
        if (status >= 200 && status < 300) {
            if (!success.documented()) {
                return DispatchResult.unknown(status, ErrorCodes.UNEXPECTED_RESPONSE, "provider answered " + status
                        + " but " + success.problem() + "; cannot tell whether it acted");
            }
            return DispatchResult.succeeded(status, Redaction.identifier(success.receiptId(), 128, secrets));
        }
        if (status == 429) {
            Instant now = now();
            Instant at = retryAt.orElse(now.plus(DEFAULT_RETRY_DELAY));
            if (at.isAfter(now.plus(retryCap))) {
                return DispatchResult.failed(status, ErrorCodes.RATE_LIMITED,
                        "rate limited; provider asks to wait " + Duration.between(now, at).toSeconds()
                                + " s, beyond the cap of " + retryCap.toSeconds() + " s");
            }
            return DispatchResult.rateLimited(status, at, "rate limited; retry at " + at);
        }
        String snippet = Redaction.snippet(body, Redaction.DEFAULT_SNIPPET, secrets);
        String suffix = snippet.isEmpty() ? "" : ": " + snippet;
        if (status >= 400 && status < 500) {
            return DispatchResult.failed(status, ErrorCodes.PROVIDER_REJECTED, "provider answered " + status + suffix);
        }
        if (status >= 500 && status < 600) {
            return DispatchResult.unknown(status, ErrorCodes.PROVIDER_ERROR,
                    "provider answered " + status + " after receiving the request" + suffix);
        }
        return DispatchResult.unknown(status, ErrorCodes.UNEXPECTED_RESPONSE,
                "provider answered " + status + "; cannot tell whether it acted");
    }

    /** Maps an exchange that threw. */
    public DispatchResult forFailure(Throwable failure) {
        SendFailure f = SendFailure.of(failure);
        if (!f.requestMaybeSent()) {
            return DispatchResult.notSent(f.errorCode(), f.detail());
        }
        return DispatchResult.unknown(null, f.errorCode(), f.detail());
    }

    public Collection<String> secrets() {
        return List.copyOf(secrets);
    }
}
