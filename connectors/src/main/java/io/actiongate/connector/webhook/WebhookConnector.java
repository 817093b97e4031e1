package io.actiongate.connector.webhook;

import io.actiongate.connector.internal.Json;
import io.actiongate.connector.internal.http.HttpCaller;
import io.actiongate.connector.internal.http.HttpOutcomes;
import io.actiongate.connector.internal.http.Redaction;
import io.actiongate.connector.internal.http.RetryAfter;
import io.actiongate.connector.internal.http.SendFailure;
import io.actiongate.connector.spi.Classification;
import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.DispatchRequest;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.ErrorCodes;
import io.actiongate.connector.spi.LookupRequest;
import io.actiongate.connector.spi.LookupResult;
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

/**
 * The generic webhook connector: {@code POST {base-url}/{operation}} with the input as the body, and
 * {@code GET {base-url}/idempotency/{key}} to reconcile. Outcome mapping in {@link HttpOutcomes}.
 */
public final class WebhookConnector implements Connector {

    private static final Logger LOG = LoggerFactory.getLogger(WebhookConnector.class);

    static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    static final String ACTION_HEADER = "X-ActionGate-Action";

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
    public Classification classify(String operation, String inputJson) {
        if (operation != null && settings.readOperations().contains(operation)) {
            return Classification.read("configured in read-operations");
        }
        if (operation != null && settings.effectOperations().contains(operation)) {
            return Classification.effect("configured in operations");
        }
        return Classification.unsupported("operation not configured for this webhook");
    }

    @Override
    public Validation validate(String operation, String inputJson) {
        if (operation == null || !(settings.readOperations().contains(operation)
                || settings.effectOperations().contains(operation))) {
            return Validation.invalid("operation not configured for this webhook");
        }
        if (inputJson == null) {
            return Validation.invalid("input missing");
        }
        if (inputJson.getBytes(StandardCharsets.UTF_8).length > settings.maxInputBytes()) {
            return Validation.invalid("input larger than " + settings.maxInputBytes() + " bytes");
        }
        if (Json.object(inputJson).isEmpty()) {
            return Validation.invalid("input is not a JSON object");
        }
        return Validation.ok();
    }

    @Override
    public DispatchResult dispatch(DispatchRequest request) {
        Validation validation = validate(request.operation(), request.inputJson());
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
            Optional<String> receipt = Json.object(response.body()).flatMap(body -> Json.text(body, "id"));
            result = outcomes.forResponse(response.status(),
                    RetryAfter.parse(response.headers().firstValue("Retry-After").orElse(null), outcomes.now()),
                    receipt, response.body());
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
            var body = Json.object(response.body());
            Optional<String> status = body.flatMap(b -> Json.text(b, "status"));
            if (status.isPresent() && status.get().equals("applied")) {
                String id = body.flatMap(b -> Json.text(b, "id"))
                        .map(v -> Redaction.identifier(v, 128, outcomes.secrets())).orElse(null);
                return LookupResult.confirmed("provider reports the key applied (200)", id);
            }
            return LookupResult.stillUnknown("provider answered 200 without status 'applied'");
        }
        return LookupResult.stillUnknown("provider answered " + response.status() + " to the lookup");
    }
}
