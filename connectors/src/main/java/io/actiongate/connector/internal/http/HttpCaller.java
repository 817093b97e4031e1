package io.actiongate.connector.internal.http;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Flow;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * A connector's HTTP/1.1 client: one request at a time per connection, blocking on the calling (dispatch) thread,
 * keep-alive connections pooled per origin. It does exactly what the connectors need and nothing more, so that a
 * dispatch costs little CPU (the JDK's {@code HttpClient}, asynchronous throughout, cost about as much per request as
 * the rest of the executor): no redirects (a redirect after a POST would be a second request), no retries (a request
 * is sent once; whether it may have arrived is the caller's question, see {@link SendFailure}), response bodies read
 * up to {@link #MAX_BODY_BYTES}, an overall deadline so that a trickling body cannot hold a dispatch thread, HTTPS
 * with the JVM's trust store and host name verification, and the JVM's proxy settings ({@code http.proxyHost},
 * {@code https.proxyHost}, ...: the default {@link ProxySelector}, as the JDK client follows them; asked once per
 * origin and caller).
 *
 * <p>What it throws keeps {@link SendFailure}'s reading: {@link java.net.ConnectException},
 * {@link HttpConnectTimeoutException} and {@link java.net.UnknownHostException} only when no byte of the request was
 * written; {@link HttpTimeoutException} when the answer did not come in time; any other {@link IOException} when the
 * request may have been sent. A pooled connection the server closed while it was idle is noticed before it is used
 * (a connection idle for more than {@link #IDLE_CHECK_AFTER} is probed first), so a dispatch rarely meets one.
 */
public final class HttpCaller {

    /** Response bodies beyond this are drawn off and dropped; we only need an id and a short snippet. */
    public static final int MAX_BODY_BYTES = 64 * 1024;
    /** Beyond the kept bytes, at most this much more is drained to keep the connection; past it, it is closed. */
    private static final int MAX_DRAIN_BYTES = 1024 * 1024;
    /** Idle connections kept per origin. */
    private static final int MAX_IDLE_PER_ORIGIN = 32;
    /** An idle connection older than this is closed instead of used (servers close idle ones after some seconds). */
    static final Duration MAX_IDLE = Duration.ofSeconds(20);
    /** A connection idle longer than this is probed for a close by the server before it carries a request. */
    static final Duration IDLE_CHECK_AFTER = Duration.ofSeconds(1);
    private static final int MAX_HEADER_LINE = 16 * 1024;
    private static final int MAX_HEADERS = 200;

    private final Duration connectTimeout;
    private final Duration responseTimeout;
    private final Map<String, ArrayDeque<Connection>> idle = new HashMap<>();
    /** Where each scheme and authority goes, asked of the proxy selector once per origin (it parses properties). */
    private final Map<String, Target> targets = new java.util.concurrent.ConcurrentHashMap<>();

    public HttpCaller(Duration connectTimeout, Duration responseTimeout) {
        this.connectTimeout = connectTimeout;
        this.responseTimeout = responseTimeout;
    }

    public Duration responseTimeout() {
        return responseTimeout;
    }

    /** The status, headers and at most {@link #MAX_BODY_BYTES} of the body. */
    public record Response(int status, HttpHeaders headers, byte[] body) {
    }

    /**
     * Sends once. Throws whatever the exchange failed with, an {@link HttpTimeoutException} when the answer is not
     * complete before the deadline, or {@link InterruptedException}; {@link SendFailure#of} interprets those.
     */
    public Response send(HttpRequest request) throws IOException, InterruptedException {
        long start = System.nanoTime();
        long completeBy = start + connectTimeout.plus(responseTimeout).toNanos() + 1_000_000_000L;
        byte[] body = bodyOf(request);
        URI uri = request.uri();
        Target target = targets.get(uri.getScheme() + "://" + uri.getRawAuthority());
        if (target == null) {
            target = Target.of(uri);
            if (targets.size() < 1_000) {
                targets.put(uri.getScheme() + "://" + uri.getRawAuthority(), target);
            }
        }
        Connection connection = borrow(target);
        // the answer's head is due within the request's timeout of sending it, as with the JDK client
        long headersBy = Math.min(completeBy, System.nanoTime() + request.timeout().orElse(responseTimeout).toNanos());
        boolean reusable = false;
        try {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            connection.write(requestHead(request, target, body.length), body);
            Response response = connection.read(request.method(), headersBy, completeBy);
            reusable = connection.reusable;
            return response;
        } catch (SocketTimeoutException e) {
            throw new HttpTimeoutException("response not complete before the deadline");
        } finally {
            if (reusable) {
                release(target, connection);
            } else {
                connection.close();
            }
        }
    }

    /** The request body's bytes, collected from its publisher (the connectors publish byte arrays and strings). */
    private static byte[] bodyOf(HttpRequest request) throws IOException {
        HttpRequest.BodyPublisher publisher = request.bodyPublisher().orElse(null);
        if (publisher == null) {
            return new byte[0];
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(publisher.contentLength() > 0
                ? (int) Math.min(publisher.contentLength(), Integer.MAX_VALUE - 8) : 256);
        IOException[] failed = new IOException[1];
        boolean[] done = new boolean[1];
        publisher.subscribe(new Flow.Subscriber<ByteBuffer>() {
            @Override
            public void onSubscribe(Flow.Subscription subscription) {
                subscription.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(ByteBuffer item) {
                byte[] chunk = new byte[item.remaining()];
                item.get(chunk);
                out.writeBytes(chunk);
            }

            @Override
            public void onError(Throwable throwable) {
                failed[0] = new IOException("request body could not be read", throwable);
                done[0] = true;
            }

            @Override
            public void onComplete() {
                done[0] = true;
            }
        });
        if (failed[0] != null) {
            throw failed[0];
        }
        if (!done[0]) {
            throw new IOException("request body publisher is asynchronous; not supported");
        }
        return out.toByteArray();
    }

    private static byte[] requestHead(HttpRequest request, Target target, int bodyLength) {
        StringBuilder head = new StringBuilder(256);
        URI uri = request.uri();
        String path = target.viaProxy && !target.tls ? uri.toASCIIString() // absolute form, to an HTTP proxy
                : (uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
                + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        head.append(request.method()).append(' ').append(path).append(" HTTP/1.1\r\n");
        head.append("Host: ").append(target.hostHeader).append("\r\n");
        boolean userAgent = false;
        for (Map.Entry<String, List<String>> header : request.headers().map().entrySet()) {
            String name = header.getKey();
            if (name.equalsIgnoreCase("Host") || name.equalsIgnoreCase("Content-Length")
                    || name.equalsIgnoreCase("Connection") || name.equalsIgnoreCase("Transfer-Encoding")) {
                continue; // this client's to set
            }
            userAgent |= name.equalsIgnoreCase("User-Agent");
            for (String value : header.getValue()) {
                head.append(name).append(": ").append(value).append("\r\n");
            }
        }
        if (!userAgent) {
            head.append("User-Agent: actiongate\r\n");
        }
        if (bodyLength > 0 || !request.method().equals("GET") && !request.method().equals("HEAD")) {
            head.append("Content-Length: ").append(bodyLength).append("\r\n");
        }
        head.append("\r\n");
        // HttpRequest.Builder refused header names and values that are not of the HTTP token and field forms
        return head.toString().getBytes(StandardCharsets.UTF_8);
    }

    private Connection borrow(Target target) throws IOException {
        while (true) {
            Connection pooled;
            synchronized (idle) {
                ArrayDeque<Connection> queue = idle.get(target.origin);
                pooled = queue == null ? null : queue.pollLast();
            }
            if (pooled == null) {
                return Connection.open(target, connectTimeout);
            }
            if (pooled.usable()) {
                return pooled;
            }
            pooled.close();
        }
    }

    private void release(Target target, Connection connection) {
        connection.idleSince = System.nanoTime();
        synchronized (idle) {
            ArrayDeque<Connection> queue = idle.computeIfAbsent(target.origin, o -> new ArrayDeque<>());
            if (queue.size() < MAX_IDLE_PER_ORIGIN) {
                queue.addLast(connection);
                return;
            }
        }
        connection.close();
    }

    /** Where a request goes: its origin, and the proxy (if any) the JVM's settings name for it. */
    private record Target(String origin, boolean tls, String host, int port, String hostHeader,
                          InetSocketAddress proxy, boolean viaProxy) {

        static Target of(URI uri) throws IOException {
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https")) {
                throw new java.net.ConnectException("not an http(s) URL");
            }
            boolean tls = scheme.equals("https");
            String host = uri.getHost();
            if (host == null) {
                throw new java.net.UnknownHostException("no host in the URL");
            }
            int port = uri.getPort() > 0 ? uri.getPort() : tls ? 443 : 80;
            String hostHeader = (host.contains(":") ? "[" + host + "]" : host)
                    + (uri.getPort() > 0 ? ":" + uri.getPort() : "");
            InetSocketAddress proxy = null;
            ProxySelector selector = ProxySelector.getDefault();
            if (selector != null) {
                for (Proxy p : selector.select(uri)) {
                    if (p.type() == Proxy.Type.HTTP && p.address() instanceof InetSocketAddress address) {
                        proxy = address;
                        break;
                    }
                    if (p.type() == Proxy.Type.DIRECT) {
                        break;
                    }
                }
            }
            String origin = scheme + "://" + host + ":" + port + (proxy == null ? "" : " via " + proxy);
            return new Target(origin, tls, host, port, hostHeader, proxy, proxy != null);
        }
    }

    /** One connection: its socket, buffered input, and whether it may carry another request. */
    private static final class Connection {
        private final Socket socket;
        private final BufferedInputStream in;
        private final OutputStream out;
        long idleSince;
        boolean reusable;

        private Connection(Socket socket) throws IOException {
            this.socket = socket;
            this.in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
            this.out = socket.getOutputStream();
        }

        /** Connects (through the proxy and its tunnel when there is one); no byte of the request is sent yet. */
        static Connection open(Target target, Duration connectTimeout) throws IOException {
            Socket socket = new Socket();
            try {
                socket.setTcpNoDelay(true);
                InetSocketAddress address = target.proxy != null ? target.proxy
                        : new InetSocketAddress(target.host, target.port);
                if (address.isUnresolved()) {
                    throw new java.net.UnknownHostException("host not resolvable");
                }
                try {
                    socket.connect(address, (int) Math.max(1, connectTimeout.toMillis()));
                } catch (SocketTimeoutException e) {
                    throw new HttpConnectTimeoutException("connect timed out");
                }
                if (target.tls && target.proxy != null) {
                    tunnel(socket, target, connectTimeout);
                }
                if (!target.tls) {
                    return new Connection(socket);
                }
                SSLSocket tls = (SSLSocket) sslContext().getSocketFactory()
                        .createSocket(socket, target.host, target.port, true);
                SSLParameters parameters = tls.getSSLParameters();
                parameters.setEndpointIdentificationAlgorithm("HTTPS");
                tls.setSSLParameters(parameters);
                tls.setSoTimeout((int) Math.max(1, connectTimeout.toMillis()));
                tls.startHandshake();
                return new Connection(tls);
            } catch (IOException | RuntimeException e) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // closing what failed
                }
                throw e;
            }
        }

        /** HTTP CONNECT through the proxy: no byte of the request reaches anyone before the tunnel stands. */
        private static void tunnel(Socket socket, Target target, Duration timeout) throws IOException {
            String authority = target.host + ":" + target.port;
            socket.getOutputStream().write(("CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            socket.setSoTimeout((int) Math.max(1, timeout.toMillis()));
            InputStream raw = socket.getInputStream();
            String status = rawLine(raw);
            if (status == null || !status.matches("HTTP/1\\.[01] 2\\d\\d.*")) {
                throw new java.net.ConnectException("the proxy refused the tunnel");
            }
            String line;
            while ((line = rawLine(raw)) != null && !line.isEmpty()) {
                // the proxy's headers
            }
        }

        /** A line read byte by byte (the tunnel's answer must not be read past its end). */
        private static String rawLine(InputStream in) throws IOException {
            StringBuilder b = new StringBuilder();
            int c;
            while ((c = in.read()) != -1) {
                if (c == '\n') {
                    int n = b.length();
                    return n > 0 && b.charAt(n - 1) == '\r' ? b.substring(0, n - 1) : b.toString();
                }
                if (b.length() > MAX_HEADER_LINE) {
                    throw new IOException("header line too long");
                }
                b.append((char) c);
            }
            return null;
        }

        /**
         * Whether a pooled connection may carry a request: not idle too long, and not closed by the server while it
         * was (probed, without consuming anything, when it has been idle a while).
         */
        boolean usable() {
            long idleNanos = System.nanoTime() - idleSince;
            if (idleNanos > MAX_IDLE.toNanos() || socket.isClosed()) {
                return false;
            }
            if (idleNanos < IDLE_CHECK_AFTER.toNanos()) {
                return true;
            }
            try {
                if (in.available() > 0) {
                    return false; // the server sent something unasked: not a connection to trust
                }
                socket.setSoTimeout(1);
                in.read();
                return false; // end of stream (closed by the server) or an unexpected byte
            } catch (SocketTimeoutException alive) {
                return true;
            } catch (IOException e) {
                return false;
            }
        }

        void write(byte[] head, byte[] body) throws IOException {
            out.write(head);
            if (body.length > 0) {
                out.write(body);
            }
            out.flush();
        }

        /** Reads one answer (skipping interim 1xx ones) by the deadlines; sets {@link #reusable}. */
        Response read(String method, long headersBy, long completeBy) throws IOException {
            while (true) {
                timeoutUntil(headersBy);
                String statusLine = line();
                if (statusLine == null) {
                    throw new EOFException("connection closed before an answer");
                }
                String[] parts = statusLine.split(" ", 3);
                if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
                    throw new IOException("not an HTTP/1.x answer");
                }
                int status;
                try {
                    status = Integer.parseInt(parts[1]);
                } catch (NumberFormatException e) {
                    throw new IOException("not an HTTP status");
                }
                boolean http10 = parts[0].equals("HTTP/1.0");
                Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
                String header;
                int count = 0;
                while ((header = line()) != null && !header.isEmpty()) {
                    if (++count > MAX_HEADERS) {
                        throw new IOException("too many headers");
                    }
                    int colon = header.indexOf(':');
                    if (colon > 0) {
                        headers.computeIfAbsent(header.substring(0, colon).strip(), k -> new java.util.ArrayList<>())
                                .add(header.substring(colon + 1).strip());
                    }
                }
                if (header == null) {
                    throw new EOFException("connection closed in the answer's headers");
                }
                if (status >= 100 && status < 200) {
                    continue; // an interim answer (100 Continue, 103 Early Hints): the final one follows
                }
                timeoutUntil(completeBy);
                byte[] body = body(method, status, headers, completeBy);
                String connection = first(headers, "Connection");
                reusable = reusable && !"close".equalsIgnoreCase(connection)
                        && (!http10 || "keep-alive".equalsIgnoreCase(connection));
                return new Response(status, HttpHeaders.of(headers, (name, value) -> true), body);
            }
        }

        private byte[] body(String method, int status, Map<String, List<String>> headers, long completeBy)
                throws IOException {
            reusable = true;
            if (method.equals("HEAD") || status == 204 || status == 304) {
                return new byte[0];
            }
            Bounded kept = new Bounded();
            String encoding = first(headers, "Transfer-Encoding");
            String length = first(headers, "Content-Length");
            if (encoding != null && encoding.toLowerCase(Locale.ROOT).contains("chunked")) {
                while (true) {
                    String size = line();
                    if (size == null) {
                        throw new EOFException("chunked body ended early");
                    }
                    long n;
                    try {
                        n = Long.parseLong(size.split(";", 2)[0].strip(), 16);
                    } catch (NumberFormatException e) {
                        throw new IOException("bad chunk size");
                    }
                    if (n == 0) {
                        String trailer;
                        while ((trailer = line()) != null && !trailer.isEmpty()) {
                            // trailers
                        }
                        break;
                    }
                    copy(n, kept, completeBy);
                    line();
                }
            } else if (length != null) {
                long n;
                try {
                    n = Long.parseLong(length);
                } catch (NumberFormatException e) {
                    throw new IOException("bad Content-Length");
                }
                copy(n, kept, completeBy);
            } else {
                reusable = false; // the body ends with the connection
                copy(Long.MAX_VALUE, kept, completeBy);
            }
            return kept.bytes();
        }

        /** Reads {@code n} bytes (or to the end of the stream when unbounded) into {@code kept}, by the deadline. */
        private void copy(long n, Bounded kept, long completeBy) throws IOException {
            byte[] buffer = new byte[8192];
            long left = n;
            while (left > 0) {
                if (System.nanoTime() - completeBy > 0) {
                    throw new SocketTimeoutException("body not complete before the deadline");
                }
                int read = in.read(buffer, 0, (int) Math.min(buffer.length, left));
                if (read < 0) {
                    if (n == Long.MAX_VALUE) {
                        return;
                    }
                    throw new EOFException("body ended early");
                }
                kept.write(buffer, read);
                left -= read;
                if (kept.dropped > MAX_DRAIN_BYTES && left > 0) {
                    reusable = false; // not worth draining: the connection closes, the kept prefix is the answer
                    return;
                }
            }
        }

        private void timeoutUntil(long deadline) throws IOException {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new SocketTimeoutException("deadline passed");
            }
            socket.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, left / 1_000_000)));
        }

        private String line() throws IOException {
            StringBuilder b = new StringBuilder(64);
            int c;
            while ((c = in.read()) != -1) {
                if (c == '\n') {
                    int n = b.length();
                    return n > 0 && b.charAt(n - 1) == '\r' ? b.substring(0, n - 1) : b.toString();
                }
                if (b.length() > MAX_HEADER_LINE) {
                    throw new IOException("header line too long");
                }
                b.append((char) c);
            }
            return b.length() == 0 ? null : b.toString();
        }

        void close() {
            try {
                socket.close();
            } catch (IOException e) {
                // closing
            }
        }
    }

    private static String first(Map<String, List<String>> headers, String name) {
        List<String> values = headers.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    /** Keeps the first {@link #MAX_BODY_BYTES}; counts what it drops. */
    private static final class Bounded {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        long dropped;

        void write(byte[] buffer, int n) {
            int room = MAX_BODY_BYTES - bytes.size();
            int take = Math.min(room, n);
            if (take > 0) {
                bytes.write(buffer, 0, take);
            }
            dropped += n - Math.max(take, 0);
        }

        byte[] bytes() {
            return bytes.toByteArray();
        }
    }

    private static SSLContext sslContext() throws IOException {
        try {
            return SSLContext.getDefault();
        } catch (NoSuchAlgorithmException e) {
            throw new IOException("no TLS", e);
        }
    }
}
