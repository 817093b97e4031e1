package io.actiongate.connector.internal.http;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One JDK {@link HttpClient} per connector: HTTP/1.1 (no h2c upgrade dance), no redirects (a redirect after a
 * POST would be a second request), connect timeout from the settings, and response bodies read up to a bound
 * with an overall deadline so a trickling body cannot hold a dispatch thread forever.
 */
public final class HttpCaller {

    /** Response bodies beyond this are drawn off and dropped; we only need an id and a short snippet. */
    public static final int MAX_BODY_BYTES = 64 * 1024;

    private final HttpClient client;
    private final Duration connectTimeout;
    private final Duration responseTimeout;

    public HttpCaller(Duration connectTimeout, Duration responseTimeout) {
        this.connectTimeout = connectTimeout;
        this.responseTimeout = responseTimeout;
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(connectTimeout)
                .build();
    }

    public Duration responseTimeout() {
        return responseTimeout;
    }

    /** The status, headers and at most {@link #MAX_BODY_BYTES} of the body. */
    public record Response(int status, HttpHeaders headers, byte[] body) {
    }

    /**
     * Sends once. Throws whatever the exchange failed with (unwrapped), an {@link HttpTimeoutException} when
     * the overall deadline passes, or {@link InterruptedException}; {@link SendFailure#of} interprets those.
     */
    public Response send(HttpRequest request) throws IOException, InterruptedException {
        CompletableFuture<HttpResponse<byte[]>> future = client.sendAsync(request, info -> new BoundedBody());
        long deadlineMillis = connectTimeout.plus(responseTimeout).toMillis() + 1_000;
        try {
            HttpResponse<byte[]> response = future.get(deadlineMillis, TimeUnit.MILLISECONDS);
            return new Response(response.statusCode(), response.headers(), response.body());
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new HttpTimeoutException("response not complete before the deadline");
        } catch (InterruptedException e) {
            future.cancel(true);
            throw e;
        } catch (CancellationException e) {
            throw new IOException("exchange cancelled", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IOException("exchange failed", cause);
        }
    }

    /** Collects at most {@link #MAX_BODY_BYTES}; keeps requesting so the connection drains cleanly. */
    private static final class BoundedBody implements HttpResponse.BodySubscriber<byte[]> {
        private final CompletableFuture<byte[]> result = new CompletableFuture<>();
        private final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        private Flow.Subscription subscription;

        @Override
        public CompletionStage<byte[]> getBody() {
            return result;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            this.subscription = subscription;
            subscription.request(1);
        }

        @Override
        public void onNext(List<ByteBuffer> items) {
            for (ByteBuffer buffer : items) {
                int room = MAX_BODY_BYTES - bytes.size();
                int take = Math.min(room, buffer.remaining());
                if (take > 0) {
                    byte[] chunk = new byte[take];
                    buffer.get(chunk);
                    bytes.write(chunk, 0, take);
                }
            }
            subscription.request(1);
        }

        @Override
        public void onError(Throwable throwable) {
            result.completeExceptionally(throwable);
        }

        @Override
        public void onComplete() {
            result.complete(bytes.toByteArray());
        }
    }
}
