package io.actiongate.connector.x;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Posts text to X. X's API takes no idempotency key, so a lost answer can only be reconciled by looking for
 * the exact text among the account's recent posts; that can confirm a post, never prove its absence.
 */
public final class XConnector implements Connector {

    private static final Logger LOG = LoggerFactory.getLogger(XConnector.class);

    static final String OPERATION = "post";
    static final int MAX_TEXT = 280;

    private final XSettings settings;
    private final HttpCaller http;
    private final HttpOutcomes outcomes;

    XConnector(XSettings settings, Clock clock) {
        this.settings = settings;
        this.http = new HttpCaller(settings.connectTimeout(), settings.responseTimeout());
        this.outcomes = new HttpOutcomes(settings.retryAfterCap(), clock, List.of(settings.credential().secret()));
    }

    @Override
    public String provider() {
        return XConnectorFactory.PROVIDER;
    }

    @Override
    public Classification classify(String operation, String inputJson) {
        return OPERATION.equals(operation)
                ? Classification.effect("publishes a post")
                : Classification.unsupported("x supports only 'post'");
    }

    @Override
    public Validation validate(String operation, String inputJson) {
        if (!OPERATION.equals(operation)) {
            return Validation.invalid("x supports only 'post'");
        }
        Optional<ObjectNode> input = Json.object(inputJson);
        if (input.isEmpty()) {
            return Validation.invalid("input is not a JSON object");
        }
        Optional<String> extra = Json.unexpectedField(input.get(), Set.of("text"));
        if (extra.isPresent()) {
            return Validation.invalid("unexpected field '" + Redaction.snippet(extra.get(), 40, List.of()) + "'");
        }
        JsonNode text = input.get().get("text");
        if (text == null || !text.isTextual()) {
            return Validation.invalid("'text' must be a string");
        }
        String value = text.asText();
        if (value.isBlank()) {
            return Validation.invalid("'text' is empty");
        }
        if (value.codePointCount(0, value.length()) > MAX_TEXT) {
            return Validation.invalid("'text' longer than " + MAX_TEXT + " characters");
        }
        return Validation.ok();
    }

    @Override
    public DispatchResult dispatch(DispatchRequest request) {
        Validation validation = validate(request.operation(), request.inputJson());
        if (!validation.valid()) {
            return DispatchResult.refusedBeforeSending(ErrorCodes.SCHEMA_INVALID, validation.violation());
        }
        String text = Json.object(request.inputJson()).orElseThrow().get("text").asText();
        ObjectNode body = Json.MAPPER.createObjectNode().put("text", text);
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(settings.baseUrl() + "/2/tweets"))
                .timeout(settings.responseTimeout())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8));
        settings.credential().apply(builder);
        DispatchResult result;
        try {
            HttpCaller.Response response = http.send(builder.build());
            Optional<String> id = Json.object(response.body()).flatMap(b -> Json.text(b, "data", "id"));
            result = outcomes.forResponse(response.status(), retryAt(response.headers()), id, response.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            result = outcomes.forFailure(e);
        } catch (IOException e) {
            result = outcomes.forFailure(e);
        }
        LOG.info("x dispatch action={} attempt={} status={} http={} error={}", request.actionKey(), request.attempt(),
                result.status(), result.httpStatus(), result.errorCode());
        return result;
    }

    /** {@code Retry-After} when X sends it, else {@code x-rate-limit-reset} (epoch seconds). */
    private Optional<Instant> retryAt(HttpHeaders headers) {
        Instant now = outcomes.now();
        Optional<Instant> retryAfter = RetryAfter.parse(headers.firstValue("Retry-After").orElse(null), now);
        if (retryAfter.isPresent()) {
            return retryAfter;
        }
        return RetryAfter.parseEpochSeconds(headers.firstValue("x-rate-limit-reset").orElse(null), now);
    }

    @Override
    public LookupResult lookup(LookupRequest request) {
        if (settings.userId() == null) {
            return LookupResult.stillUnknown("no user-id configured; cannot list the account's posts");
        }
        Optional<String> text = Json.object(request.inputJson()).map(o -> o.get("text"))
                .filter(JsonNode::isTextual).map(JsonNode::asText);
        if (text.isEmpty()) {
            return LookupResult.stillUnknown("no post text to look for");
        }
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(settings.baseUrl() + "/2/users/"
                        + settings.userId() + "/tweets?max_results=" + settings.lookupMaxResults()))
                .timeout(settings.responseTimeout())
                .header("Accept", "application/json")
                .GET();
        settings.credential().apply(builder);
        LookupResult result;
        try {
            result = interpret(http.send(builder.build()), text.get());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            result = LookupResult.stillUnknown("lookup interrupted");
        } catch (IOException e) {
            result = LookupResult.stillUnknown("lookup failed: " + SendFailure.of(e).detail());
        }
        LOG.info("x lookup action={}/{} verdict={}", request.taskId(), request.toolCallId(), result.verdict());
        return result;
    }

    private LookupResult interpret(HttpCaller.Response response, String text) {
        if (response.status() != 200) {
            return LookupResult.stillUnknown("x answered " + response.status() + " to the timeline lookup");
        }
        Optional<ObjectNode> body = Json.object(response.body());
        if (body.isEmpty()) {
            return LookupResult.stillUnknown("timeline answer was not JSON");
        }
        JsonNode data = body.get().get("data");
        int seen = 0;
        if (data != null && data.isArray()) {
            for (JsonNode post : data) {
                seen++;
                JsonNode postText = post.get("text");
                JsonNode id = post.get("id");
                if (postText != null && id != null && text.equals(unescape(postText.asText()))) {
                    return LookupResult.confirmed("a recent post has exactly this text",
                            Redaction.identifier(id.asText(), 64, outcomes.secrets()));
                }
            }
        }
        return LookupResult.stillUnknown("not among the " + seen
                + " most recent posts; a recent-posts window cannot prove the post was never made");
    }

    /** X returns post text with {@code &amp; &lt; &gt;} escaped. */
    static String unescape(String text) {
        return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
    }
}
