package io.actiongate.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A local webhook provider on 127.0.0.1 that implements the provider protocol of docs/contract.md section 6, for
 * {@code actiongate dev}, the demo and tests.
 * <ul>
 *   <li>{@code POST /{operation}} with an {@code Idempotency-Key}: applies the effect once per key and answers
 *       200 {@code {"status":"applied","id":...}} (the protocol's documented dispatch answer, the same as a positive
 *       lookup); the same key again answers the same id without a second effect.</li>
 *   <li>{@code GET /idempotency/{key}}: 200 {@code {"status":"applied","id":...}} or 404.</li>
 *   <li>Programmable {@link Fault}s, consumed one per matching request: 429 with a {@code Retry-After}, a delay
 *       after applying, 500 after applying, a dropped connection (before or after applying), a held request,
 *       a lookup that answers 500.</li>
 * </ul>
 * It counts requests and effects per idempotency key. Request bodies are kept only as their size; nothing of
 * them is logged.
 */
public final class SandboxWebhookProvider implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SandboxWebhookProvider.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String IDEMPOTENCY_PATH = "/idempotency/";

    /** What a programmed fault does to one request. */
    public enum Kind {
        /** Answer 429 with the fault's {@code Retry-After} value; nothing is applied. */
        RATE_LIMIT,
        /** Apply the effect, then wait the fault's delay before answering 200. */
        DELAY_AFTER_APPLY,
        /** Apply the effect, then answer 500. */
        ERROR_AFTER_APPLY,
        /** Close the connection without an answer, nothing applied. */
        DROP_BEFORE_APPLY,
        /** Apply the effect, then close the connection without an answer. */
        DROP_AFTER_APPLY,
        /** Hold the request, nothing applied yet, until {@link #releaseHeld()} or the delay passes; then apply. */
        HOLD_BEFORE_APPLY,
        /** Answer a {@code GET /idempotency/{key}} lookup with 500, whether or not the effect was applied. */
        LOOKUP_ERROR
    }

    /**
     * One programmed fault. {@code key} null matches any idempotency key; {@code times} requests consume it.
     */
    public record Fault(Kind kind, String key, int times, String retryAfter, Duration delay) {

        public Fault {
            Objects.requireNonNull(kind, "kind");
            if (times < 1) {
                throw new IllegalArgumentException("times must be at least 1");
            }
            delay = delay == null ? Duration.ZERO : delay;
        }

        public static Fault rateLimit(String key, int times, String retryAfter) {
            return new Fault(Kind.RATE_LIMIT, key, times, retryAfter, null);
        }

        public static Fault delayAfterApply(String key, Duration delay) {
            return new Fault(Kind.DELAY_AFTER_APPLY, key, 1, null, delay);
        }

        public static Fault errorAfterApply(String key) {
            return new Fault(Kind.ERROR_AFTER_APPLY, key, 1, null, null);
        }

        public static Fault dropBeforeApply(String key) {
            return new Fault(Kind.DROP_BEFORE_APPLY, key, 1, null, null);
        }

        public static Fault dropAfterApply(String key) {
            return new Fault(Kind.DROP_AFTER_APPLY, key, 1, null, null);
        }

        public static Fault holdBeforeApply(String key, Duration maxHold) {
            return new Fault(Kind.HOLD_BEFORE_APPLY, key, 1, null, maxHold);
        }

        /** Lookups that answer 500 for {@code key}: the provider cannot tell whether the effect happened. */
        public static Fault lookupError(String key, int times) {
            return new Fault(Kind.LOOKUP_ERROR, key, times, null, null);
        }

        boolean matches(String idempotencyKey, boolean lookup) {
            return (kind == Kind.LOOKUP_ERROR) == lookup && (key == null || key.equals(idempotencyKey));
        }
    }

    /** An applied effect. */
    public record Effect(String id, String operation, String idempotencyKey, int bodyBytes) {
    }

    private final HttpServer server;
    private final ExecutorService executor;
    private final String requiredAuthorization;
    /**
     * Everything seen under one idempotency key, in one entry per key: {@code actiongate dev} runs this provider for
     * as long as it runs, so what it keeps per key is what its heap grows by per action.
     */
    private static final class KeyLog {
        private Effect effect;
        private int requests;
        private int appliedRequests;
        private int lookups;
        private List<java.time.Instant> requestTimes = List.of();
        private List<String> traceparents = List.of();
        private List<List<MultipartForm.Part>> attachments = List.of();

        private static <T> List<T> add(List<T> list, T item) {
            List<T> grown = new ArrayList<>(list.size() + 1);
            grown.addAll(list);
            grown.add(item);
            return grown;
        }
    }

    private final Map<String, KeyLog> keys = new ConcurrentHashMap<>();
    private final AtomicInteger effectCount = new AtomicInteger();
    private final Deque<ProgrammedFault> faults = new ConcurrentLinkedDeque<>();
    private final AtomicLong totalRequests = new AtomicLong();
    private final AtomicLong lookups = new AtomicLong();
    private volatile CountDownLatch held = new CountDownLatch(1);
    private volatile Duration latency = Duration.ZERO;

    private SandboxWebhookProvider(InetSocketAddress address, String requiredAuthorization) throws IOException {
        this.requiredAuthorization = requiredAuthorization;
        this.server = LoopbackHttpServers.create(address, 64);
        this.executor = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "sandbox-webhook");
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(executor);
        server.createContext("/", this::handle);
    }

    /** Starts on an ephemeral port of 127.0.0.1, accepting any credential. */
    public static SandboxWebhookProvider start() {
        return start(0, null);
    }

    /**
     * Starts on {@code port} of 127.0.0.1 (0 = ephemeral). When {@code requiredAuthorization} is not null, a
     * request whose {@code Authorization} header differs gets 401.
     */
    public static SandboxWebhookProvider start(int port, String requiredAuthorization) {
        try {
            SandboxWebhookProvider provider = new SandboxWebhookProvider(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), port), requiredAuthorization);
            provider.server.start();
            LOG.info("sandbox webhook provider listening on {}", provider.baseUri());
            return provider;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the sandbox webhook provider: " + e.getMessage(), e);
        }
    }

    /**
     * Adds {@code latency} to every effect request (POST) before it is handled, as a remote provider's service time
     * (the benchmark's loopback provider: default 2 ms there). Zero, the default, adds nothing.
     */
    public SandboxWebhookProvider latency(Duration latency) {
        if (latency.isNegative()) {
            throw new IllegalArgumentException("latency must not be negative: " + latency);
        }
        this.latency = latency;
        return this;
    }

    public URI baseUri() {
        InetSocketAddress address = server.getAddress();
        return URI.create("http://" + address.getAddress().getHostAddress() + ":" + address.getPort());
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** Adds a fault; faults are tried in the order they were programmed. */
    public SandboxWebhookProvider program(Fault fault) {
        faults.add(new ProgrammedFault(fault));
        return this;
    }

    /** Lets every request held by {@link Kind#HOLD_BEFORE_APPLY} continue. */
    public void releaseHeld() {
        CountDownLatch latch = held;
        held = new CountDownLatch(1);
        latch.countDown();
    }

    /** POST requests received for {@code idempotencyKey}, whatever their fate. */
    public int requests(String idempotencyKey) {
        return read(idempotencyKey, 0, log -> log.requests);
    }

    /** When each POST for {@code idempotencyKey} arrived, in order. */
    public List<java.time.Instant> requestTimes(String idempotencyKey) {
        return read(idempotencyKey, List.of(), log -> List.copyOf(log.requestTimes));
    }

    /** The W3C {@code traceparent} header of each request under {@code idempotencyKey} that carried one. */
    public List<String> traceparents(String idempotencyKey) {
        return read(idempotencyKey, List.of(), log -> List.copyOf(log.traceparents));
    }

    /** Effects applied for {@code idempotencyKey}: 0 or 1, by the idempotency contract. */
    public int effects(String idempotencyKey) {
        return read(idempotencyKey, 0, log -> log.effect == null ? 0 : 1);
    }

    /**
     * POST requests for {@code idempotencyKey} that reached the apply step (not refused, rate limited or dropped
     * before applying), including repeats the idempotency store answered without a second effect: what a provider
     * without an idempotency store would have applied.
     */
    public int appliedRequests(String idempotencyKey) {
        return read(idempotencyKey, 0, log -> log.appliedRequests);
    }

    public Map<String, Integer> requestsByKey() {
        Map<String, Integer> copy = new java.util.TreeMap<>();
        keys.forEach((key, log) -> {
            int requests;
            synchronized (log) {
                requests = log.requests;
            }
            if (requests > 0) {
                copy.put(key, requests);
            }
        });
        return copy;
    }

    public long totalRequests() {
        return totalRequests.get();
    }

    /** The attachment parts of each multipart request under {@code idempotencyKey}, in arrival order. */
    public List<List<MultipartForm.Part>> attachments(String idempotencyKey) {
        return read(idempotencyKey, List.of(), log -> List.copyOf(log.attachments));
    }

    public int effectCount() {
        return effectCount.get();
    }

    public long lookups() {
        return lookups.get();
    }

    /** {@code GET /idempotency/{key}} lookups received for {@code idempotencyKey}, whatever their answer. */
    public int lookups(String idempotencyKey) {
        return read(idempotencyKey, 0, log -> log.lookups);
    }

    public Effect effect(String idempotencyKey) {
        return read(idempotencyKey, null, log -> log.effect);
    }

    private <T> T read(String idempotencyKey, T none, java.util.function.Function<KeyLog, T> what) {
        KeyLog log = keys.get(idempotencyKey);
        if (log == null) {
            return none;
        }
        synchronized (log) {
            return what.apply(log);
        }
    }

    private KeyLog log(String idempotencyKey) {
        return keys.computeIfAbsent(idempotencyKey, k -> new KeyLog());
    }

    /** Records an effect as if a request had applied it, without counting a request (for reconciliation tests). */
    public Effect applyDirectly(String operation, String idempotencyKey) {
        KeyLog log = log(idempotencyKey);
        synchronized (log) {
            return apply(log, operation, idempotencyKey, 0);
        }
    }

    /** Forgets effects, counts and faults. */
    public void reset() {
        keys.clear();
        effectCount.set(0);
        faults.clear();
        totalRequests.set(0);
        lookups.set(0);
        releaseHeld();
    }

    @Override
    public void close() {
        releaseHeld();
        server.stop(0);
        executor.shutdownNow();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            String method = exchange.getRequestMethod();
            if ("GET".equals(method) && path.startsWith(IDEMPOTENCY_PATH)) {
                lookup(exchange, path.substring(IDEMPOTENCY_PATH.length()));
            } else if ("POST".equals(method) && path.length() > 1 && path.indexOf('/', 1) < 0) {
                post(exchange, path.substring(1));
            } else {
                respond(exchange, 404, Map.of("error", "not found"), null);
            }
        } catch (DroppedConnection dropped) {
            // the try-with-resources closed the exchange without any response: the client sees a reset
        }
    }

    private void lookup(HttpExchange exchange, String key) throws IOException {
        lookups.incrementAndGet();
        KeyLog log = log(key);
        synchronized (log) {
            log.lookups++;
        }
        drain(exchange.getRequestBody());
        if (!authorized(exchange)) {
            respond(exchange, 401, Map.of("error", "unauthorized"), null);
            return;
        }
        Fault fault = takeFault(key, true);
        if (fault != null) {
            respond(exchange, 500, Map.of("error", "internal error"), null);
            return;
        }
        Effect effect = effect(key);
        if (effect == null) {
            respond(exchange, 404, Map.of("status", "unknown"), null);
        } else {
            respond(exchange, 200, applied(effect), null);
        }
    }

    private void post(HttpExchange exchange, String operation) throws IOException {
        totalRequests.incrementAndGet();
        Duration serviceTime = latency;
        if (!serviceTime.isZero()) {
            sleep(serviceTime);
        }
        byte[] body = exchange.getRequestBody().readAllBytes();
        int bodyBytes = body.length;
        String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
        if (key == null || key.isBlank()) {
            respond(exchange, 400, Map.of("error", "missing Idempotency-Key"), null);
            return;
        }
        Optional<String> boundary = MultipartForm.boundary(exchange.getRequestHeaders().getFirst("Content-Type"));
        List<MultipartForm.Part> parts = null;
        if (boundary.isPresent()) {
            try {
                parts = MultipartForm.parse(body, boundary.get()).stream()
                        .filter(part -> part.name().equals("attachment")).toList();
            } catch (IllegalArgumentException e) {
                respond(exchange, 400, Map.of("error", "malformed multipart body"), null);
                return;
            }
        }
        String traceparent = exchange.getRequestHeaders().getFirst("traceparent");
        KeyLog log = log(key);
        synchronized (log) {
            if (parts != null) {
                log.attachments = KeyLog.add(log.attachments, parts);
            }
            log.requests++;
            log.requestTimes = KeyLog.add(log.requestTimes, java.time.Instant.now());
            if (traceparent != null) {
                log.traceparents = KeyLog.add(log.traceparents, traceparent);
            }
        }
        if (!authorized(exchange)) {
            respond(exchange, 401, Map.of("error", "unauthorized"), null);
            return;
        }
        Fault fault = takeFault(key, false);
        if (fault == null) {
            Effect effect = applyRequest(log, operation, key, bodyBytes);
            respond(exchange, 200, applied(effect), null);
            return;
        }
        switch (fault.kind()) {
            case RATE_LIMIT -> respond(exchange, 429, Map.of("error", "rate limited"), fault.retryAfter());
            case DELAY_AFTER_APPLY -> {
                Effect effect = applyRequest(log, operation, key, bodyBytes);
                sleep(fault.delay());
                respond(exchange, 200, applied(effect), null);
            }
            case ERROR_AFTER_APPLY -> {
                applyRequest(log, operation, key, bodyBytes);
                respond(exchange, 500, Map.of("error", "internal error"), null);
            }
            case DROP_BEFORE_APPLY -> throw new DroppedConnection();
            case DROP_AFTER_APPLY -> {
                applyRequest(log, operation, key, bodyBytes);
                throw new DroppedConnection();
            }
            case HOLD_BEFORE_APPLY -> {
                awaitRelease(fault.delay());
                Effect effect = applyRequest(log, operation, key, bodyBytes);
                respond(exchange, 200, applied(effect), null);
            }
            default -> throw new IllegalStateException("unhandled fault " + fault.kind());
        }
    }

    /** The documented positive answer of the webhook protocol, to a dispatch and to a lookup alike. */
    private static Map<String, String> applied(Effect effect) {
        return Map.of("status", "applied", "id", effect.id());
    }

    /** A POST that reached the apply step: counted even when the key's effect already exists. */
    private Effect applyRequest(KeyLog log, String operation, String key, int bodyBytes) {
        synchronized (log) {
            log.appliedRequests++;
            return apply(log, operation, key, bodyBytes);
        }
    }

    /** The key's effect, applied now if it has none; the caller holds {@code log}'s lock. */
    private Effect apply(KeyLog log, String operation, String key, int bodyBytes) {
        if (log.effect == null) {
            log.effect = new Effect("sbx-" + UUID.randomUUID(), operation, key, bodyBytes);
            effectCount.incrementAndGet();
        }
        return log.effect;
    }

    private Fault takeFault(String key, boolean lookup) {
        for (ProgrammedFault programmed : faults) {
            if (programmed.fault.matches(key, lookup) && programmed.take()) {
                if (programmed.remaining.get() <= 0) {
                    faults.remove(programmed);
                }
                return programmed.fault;
            }
        }
        return null;
    }

    private boolean authorized(HttpExchange exchange) {
        return requiredAuthorization == null
                || requiredAuthorization.equals(exchange.getRequestHeaders().getFirst("Authorization"));
    }

    private void awaitRelease(Duration max) {
        try {
            held.await(max.isZero() ? Long.MAX_VALUE : max.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleep(Duration delay) {
        try {
            Thread.sleep(delay.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static int drain(InputStream body) throws IOException {
        return body.readAllBytes().length;
    }

    private static void respond(HttpExchange exchange, int status, Map<String, String> body, String retryAfter)
            throws IOException {
        byte[] bytes = JSON.writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        if (retryAfter != null) {
            exchange.getResponseHeaders().set("Retry-After", retryAfter);
        }
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** All faults not yet consumed, for diagnostics. */
    public List<Fault> pendingFaults() {
        List<Fault> pending = new ArrayList<>();
        faults.forEach(programmed -> pending.add(programmed.fault));
        return pending;
    }

    private static final class ProgrammedFault {
        private final Fault fault;
        private final AtomicInteger remaining;

        ProgrammedFault(Fault fault) {
            this.fault = fault;
            this.remaining = new AtomicInteger(fault.times());
        }

        boolean take() {
            return remaining.getAndUpdate(n -> n > 0 ? n - 1 : n) > 0;
        }
    }

    private static final class DroppedConnection extends RuntimeException {
        private static final long serialVersionUID = 1L;

        DroppedConnection() {
            super("connection dropped by fault", null, false, false);
        }
    }
}
