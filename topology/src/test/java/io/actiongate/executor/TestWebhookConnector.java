package io.actiongate.executor;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.actiongate.connector.spi.Classification;
import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.DispatchRequest;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.LookupRequest;
import io.actiongate.connector.spi.LookupResult;
import io.actiongate.connector.spi.Validation;

/**
 * A minimal webhook-protocol connector for the executor and reconciler ITs, used until the real webhook connector
 * is on main. It follows the outcome rules of ARCHITECTURE.md section 5 closely enough for these tests.
 */
final class TestWebhookConnector implements Connector {

    private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*\"([^\"]+)\"");

    private final URI base;
    private final HttpClient client;
    private final Duration responseTimeout;

    TestWebhookConnector(URI base, Duration responseTimeout) {
        this.base = base;
        this.responseTimeout = responseTimeout;
        this.client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    }

    @Override
    public String provider() {
        return "webhook";
    }

    @Override
    public Classification classify(String operation, String inputJson) {
        return Classification.effect(operation);
    }

    @Override
    public Validation validate(String operation, String inputJson) {
        return Validation.ok();
    }

    @Override
    public DispatchResult dispatch(DispatchRequest request) {
        HttpRequest http = HttpRequest.newBuilder(base.resolve("/" + request.operation()))
                .timeout(responseTimeout)
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", request.idempotencyKey())
                .header("X-ActionGate-Action", request.actionKey())
                .POST(HttpRequest.BodyPublishers.ofString(request.inputJson()))
                .build();
        HttpResponse<String> response;
        try {
            response = client.send(http, HttpResponse.BodyHandlers.ofString());
        } catch (ConnectException e) {
            return DispatchResult.notSent("CONNECTION_REFUSED", "connection refused");
        } catch (HttpTimeoutException e) {
            return DispatchResult.unknown(null, "TIMEOUT", "no response in time");
        } catch (IOException e) {
            return DispatchResult.unknown(null, "IO_ERROR", e.getClass().getSimpleName());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return DispatchResult.unknown(null, "INTERRUPTED", "interrupted");
        }
        int status = response.statusCode();
        if (status >= 200 && status < 300) {
            Matcher m = ID.matcher(response.body());
            return DispatchResult.succeeded(status, m.find() ? m.group(1) : null);
        }
        if (status == 429) {
            Instant retryAt = retryAt(response.headers().firstValue("Retry-After").orElse(null));
            return DispatchResult.rateLimited(status, retryAt, "rate limited");
        }
        if (status >= 400 && status < 500) {
            return DispatchResult.failed(status, "PROVIDER_REJECTED", "provider answered " + status);
        }
        return DispatchResult.unknown(status, "PROVIDER_ERROR", "provider answered " + status);
    }

    static Instant retryAt(String header) {
        if (header == null) {
            return Instant.now();
        }
        try {
            return Instant.now().plusSeconds(Long.parseLong(header.trim()));
        } catch (NumberFormatException e) {
            return ZonedDateTime.parse(header.trim(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        }
    }

    @Override
    public LookupResult lookup(LookupRequest request) {
        HttpRequest http = HttpRequest.newBuilder(base.resolve("/idempotency/" + request.idempotencyKey()))
                .timeout(responseTimeout).GET().build();
        try {
            HttpResponse<String> response = client.send(http, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() == 200) {
                Matcher m = ID.matcher(response.body());
                return LookupResult.confirmed("provider reports the key applied", m.find() ? m.group(1) : null);
            }
            if (response.statusCode() == 404) {
                return LookupResult.noEffect("provider does not know the key");
            }
            return LookupResult.stillUnknown("provider answered " + response.statusCode());
        } catch (IOException e) {
            return LookupResult.stillUnknown("lookup failed: " + e.getClass().getSimpleName());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return LookupResult.stillUnknown("interrupted");
        }
    }
}
