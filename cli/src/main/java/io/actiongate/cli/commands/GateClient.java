package io.actiongate.cli.commands;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.actiongate.key.ActionKey;

/** Reads an action's state from a gate's HTTP surface ({@code GET /v1/actions/{task}/{call}}). */
final class GateClient {

    static final String DEFAULT_URL = "http://127.0.0.1:8080";

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final URI base;
    private final HttpClient client;
    private final String token;

    GateClient(String gateUrl) {
        this(gateUrl, null);
    }

    /** @param token the bearer token to present, or null */
    GateClient(String gateUrl, String token) {
        this.token = token;
        String url = gateUrl.endsWith("/") ? gateUrl.substring(0, gateUrl.length() - 1) : gateUrl;
        try {
            this.base = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new CommandFailure("invalid gate URL '" + gateUrl + "'", e);
        }
        if (!"http".equals(base.getScheme()) && !"https".equals(base.getScheme())) {
            throw new CommandFailure("gate URL must start with http:// or https://, was '" + gateUrl + "'");
        }
        this.client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    }

    /** The action's JSON state; empty when the gate does not know the action (404). */
    Optional<JsonNode> action(ActionKey key) throws InterruptedException {
        URI uri = URI.create(base + "/v1/actions/" + key);
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri).timeout(TIMEOUT)
                .header("Accept", "application/json");
        if (token != null) {
            builder.header("Authorization", "Bearer " + token);
        }
        HttpRequest request = builder.GET().build();
        HttpResponse<String> response;
        try {
            response = client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            String why = e instanceof java.net.ConnectException ? "connection refused"
                    : e instanceof java.net.http.HttpTimeoutException ? "timed out"
                    : e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            throw new CommandFailure("cannot reach the gate at " + base + ": " + why, e);
        }
        if (response.statusCode() == 404) {
            return Optional.empty();
        }
        if (response.statusCode() == 401) {
            throw new CommandFailure("gate refused the request (HTTP 401): "
                    + (token == null ? "give --token-file (or --token)" : "the token is not accepted"));
        }
        if (response.statusCode() != 200) {
            throw new CommandFailure("gate answered HTTP " + response.statusCode() + " for " + key
                    + errorDetail(response.body()));
        }
        try {
            JsonNode json = MAPPER.readTree(response.body());
            if (json == null || !json.isObject()) {
                throw new CommandFailure("gate answered something that is not a JSON object for " + key);
            }
            return Optional.of(json);
        } catch (JsonProcessingException e) {
            throw new CommandFailure("gate answered invalid JSON for " + key, e);
        }
    }

    private static String errorDetail(String body) {
        try {
            JsonNode json = MAPPER.readTree(body);
            if (json != null && json.hasNonNull("message")) {
                return ": " + json.get("message").asText();
            }
        } catch (JsonProcessingException e) {
            // not JSON: the status code says enough
        }
        return "";
    }
}
