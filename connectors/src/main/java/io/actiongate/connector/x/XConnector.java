package io.actiongate.connector.x;

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
import java.util.regex.Pattern;

/**
 * Posts text to X. X's API takes no idempotency key, so a lost answer can only be reconciled by looking for
 * the exact text among the account's recent posts; that can confirm a post, never prove its absence.
 */
public final class XConnector implements Connector {

    private static final Logger LOG = LoggerFactory.getLogger(XConnector.class);

    static final String OPERATION = XClassifier.OPERATION;
    static final int MAX_TEXT = XClassifier.MAX_TEXT;
    /** X's documented post id: a decimal snowflake id, sent as a string. */
    static final Pattern POST_ID = Pattern.compile("[0-9]{1,19}");

    private final XClassifier classifier = new XClassifier();

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
    public OperationClassifier classifier() {
        return classifier;
    }

    @Override
    public DispatchResult dispatch(DispatchRequest request) {
        Validation validation = classifier.validate(request.operation(), request.inputJson());
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
            result = outcomes.forResponse(response.status(), retryAt(response.headers()), createdBody(response.body()),
                    response.body());
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

    /**
     * X's documented answer to {@code POST /2/tweets}: {@code {"data": {"id": "<digits>", "text": ...}}}. Anything
     * else (no {@code data}, an {@code errors}-only body, an id that is not a string) is not proof that the post
     * exists. An id that is a string but not a decimal post id still counts as created, but is not copied.
     */
    static HttpOutcomes.SuccessBody createdBody(byte[] raw) {
        Optional<ObjectNode> body = Json.object(raw);
        if (body.isEmpty()) {
            return HttpOutcomes.SuccessBody.undocumented("the body is not a JSON object");
        }
        JsonNode data = body.get().get("data");
        if (data == null || !data.isObject()) {
            return HttpOutcomes.SuccessBody.undocumented("the body has no \"data\" object");
        }
        JsonNode id = data.get("id");
        if (id == null || !id.isTextual()) {
            return HttpOutcomes.SuccessBody.undocumented("the body has no string \"data.id\"");
        }
        return HttpOutcomes.SuccessBody.documented(POST_ID.matcher(id.asText()).matches() ? id.asText() : null);
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
                    String postId = id.isTextual() && POST_ID.matcher(id.asText()).matches() ? id.asText() : null;
                    return LookupResult.confirmed("a recent post has exactly this text",
                            Redaction.identifier(postId, 64, outcomes.secrets()));
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
