package io.actiongate.connector.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.actiongate.connector.internal.Json;
import io.actiongate.connector.internal.http.HttpCaller;
import io.actiongate.connector.internal.http.HttpOutcomes;
import io.actiongate.secrets.Redaction;
import io.actiongate.connector.internal.http.RetryAfter;
import io.actiongate.connector.internal.http.SendFailure;
import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.DispatchRequest;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.ErrorCodes;
import io.actiongate.connector.spi.LookupRequest;
import io.actiongate.connector.spi.LookupResult;
import io.actiongate.connector.spi.OperationClassifier;
import io.actiongate.connector.spi.Tracing;
import io.actiongate.connector.spi.Validation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The generic webhook connector: {@code POST {base-url}/{operation}} with the input as the body, and
 * {@code GET {base-url}/idempotency/{key}} to reconcile. Outcome mapping in {@link HttpOutcomes}.
 */
public final class WebhookConnector implements Connector {

    private static final Logger LOG = LoggerFactory.getLogger(WebhookConnector.class);

    static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    static final String ACTION_HEADER = "X-ActionGate-Action";
    /** The documented form of a provider's receipt id: 1-128 characters, letters, digits and {@code . _ : -}. */
    static final Pattern RECEIPT_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,127}");

    private final WebhookSettings settings;
    private final HttpCaller http;
    private final HttpOutcomes outcomes;

    WebhookConnector(WebhookSettings settings, Clock clock) {
        this.settings = settings;
        this.http = new HttpCaller(settings.connectTimeout(), settings.responseTimeout());
        List<String> secrets = new ArrayList<>();
        if (settings.credential() != null) {
            secrets.add(settings.credential().secret());
        }
        this.outcomes = new HttpOutcomes(settings.retryAfterCap(), clock, secrets);
    }

    @Override
    public String provider() {
        return WebhookConnectorFactory.PROVIDER;
    }

    @Override
    public OperationClassifier classifier() {
        return settings.classifier();
    }

    @Override
    public DispatchResult dispatch(DispatchRequest request) {
        Validation validation = settings.classifier().validate(request.operation(), request.inputJson());
        if (!validation.valid()) {
            return DispatchResult.refusedBeforeSending(ErrorCodes.SCHEMA_INVALID, validation.violation());
        }
        Optional<WebhookBody> payload = WebhookBody.of(request);
        if (payload.isEmpty()) {
            return DispatchResult.refusedBeforeSending(ErrorCodes.ATTACHMENT_INVALID,
                    "attachment bytes were not loaded and verified before dispatch");
        }
        HttpRequest httpRequest;
        try {
            HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(settings.baseUrl() + "/" + request.operation()))
                    .timeout(settings.responseTimeout())
                    .header("Content-Type", payload.get().contentType())
                    .header(IDEMPOTENCY_KEY, request.idempotencyKey())
                    .header(ACTION_HEADER, request.actionKey())
                    .POST(HttpRequest.BodyPublishers.ofByteArray(payload.get().bytes()));
            Tracing.injectCurrent(builder::header); // the proposal's trace continues at the provider
            if (settings.credential() != null) {
                settings.credential().apply(builder);
            }
            httpRequest = builder.build();
        } catch (IllegalArgumentException | NullPointerException e) {
            return DispatchResult.refusedBeforeSending(ErrorCodes.SCHEMA_INVALID,
                    "idempotency key or action id cannot travel in an HTTP header");
        }
        DispatchResult result;
        try {
            HttpCaller.Response response = http.send(httpRequest);
            result = outcomes.forResponse(response.status(),
                    RetryAfter.parse(response.headers().firstValue("Retry-After").orElse(null), outcomes.now()),
                    appliedBody(response.body()), response.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            result = outcomes.forFailure(e);
        } catch (IOException e) {
            result = outcomes.forFailure(e);
        }
        LOG.info("webhook dispatch action={} attempt={} operation={} status={} http={} error={}",
                request.actionKey(), request.attempt(), request.operation(), result.status(), result.httpStatus(),
                result.errorCode());
        return result;
    }

    @Override
    public LookupResult lookup(LookupRequest request) {
        if (request.idempotencyKey() == null || request.idempotencyKey().isEmpty()) {
            return LookupResult.stillUnknown("no idempotency key to look up");
        }
        String key = URLEncoder.encode(request.idempotencyKey(), StandardCharsets.UTF_8).replace("+", "%20");
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(settings.baseUrl() + "/idempotency/" + key))
                .timeout(settings.responseTimeout())
                .header("Accept", "application/json")
                .GET();
        Tracing.injectCurrent(builder::header);
        if (settings.credential() != null) {
            settings.credential().apply(builder);
        }
        LookupResult result;
        try {
            HttpCaller.Response response = http.send(builder.build());
            result = interpretLookup(response);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            result = LookupResult.stillUnknown("lookup interrupted");
        } catch (IOException e) {
            result = LookupResult.stillUnknown("lookup failed: " + SendFailure.of(e).detail());
        }
        LOG.info("webhook lookup action={}/{} verdict={}", request.taskId(), request.toolCallId(), result.verdict());
        return result;
    }

    private LookupResult interpretLookup(HttpCaller.Response response) {
        if (response.status() == 404) {
            return LookupResult.noEffect("provider has no record of the idempotency key (404)");
        }
        if (response.status() == 200) {
            HttpOutcomes.SuccessBody applied = appliedBody(response.body());
            if (applied.documented()) {
                return LookupResult.confirmed("provider reports the key applied (200)",
                        Redaction.identifier(applied.receiptId(), 128, outcomes.secrets()));
            }
            return LookupResult.stillUnknown("provider answered 200 without the documented "
                    + "{\"status\":\"applied\",\"id\":...} body");
        }
        return LookupResult.stillUnknown("provider answered " + response.status() + " to the lookup");
    }

    /**
     * The protocol's one positive answer, to a dispatch (2xx) and to a lookup (200) alike: a JSON object with
     * {@code "status":"applied"} and a string {@code "id"}. The id is kept only when it is of the documented form
     * ({@link #RECEIPT_ID}); otherwise the effect still counts, but the id is not copied into the receipt.
     */
    static HttpOutcomes.SuccessBody appliedBody(byte[] raw) {
        Optional<ObjectNode> body = Json.object(raw);
        if (body.isEmpty()) {
            return HttpOutcomes.SuccessBody.undocumented("the body is not a JSON object");
        }
        JsonNode status = body.get().get("status");
        if (status == null || !status.isTextual() || !status.asText().equals("applied")) {
            return HttpOutcomes.SuccessBody.undocumented("the body has no \"status\":\"applied\"");
        }
        JsonNode id = body.get().get("id");
        if (id == null || !id.isTextual()) {
            return HttpOutcomes.SuccessBody.undocumented("the body has no string \"id\"");
        }
        return HttpOutcomes.SuccessBody.documented(RECEIPT_ID.matcher(id.asText()).matches() ? id.asText() : null);
    }
}
