package io.actiongate.notifier;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * One JSON {@code POST} on the JDK client (HTTP/1.1, redirects never followed), mapped to a {@link Delivery} the way
 * the webhook connector maps its answers: a connection that never came up sent nothing ({@link Delivery#NOT_SENT});
 * anything after it may have delivered. Answer bodies are read and dropped, never logged.
 */
final class HttpPoster {

    private final HttpClient client;
    private final Duration responseTimeout;

    HttpPoster(Duration connectTimeout, Duration responseTimeout) {
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(connectTimeout).build();
        this.responseTimeout = responseTimeout;
    }

    Delivery post(URI url, String json, Map<String, String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(url).timeout(responseTimeout)
                .header("Content-Type", "application/json; charset=utf-8")
                .POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8));
        headers.forEach(request::header);
        try {
            int status = client.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
            if (status >= 200 && status < 300) {
                return Delivery.DELIVERED;
            }
            return status >= 400 && status < 500 ? Delivery.REFUSED : Delivery.UNKNOWN;
        } catch (HttpConnectTimeoutException | ConnectException e) {
            return Delivery.NOT_SENT;
        } catch (IOException e) {
            return Delivery.UNKNOWN;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Delivery.UNKNOWN;
        }
    }
}
