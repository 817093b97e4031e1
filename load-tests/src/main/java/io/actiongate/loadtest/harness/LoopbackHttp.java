package io.actiongate.loadtest.harness;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The closed-loop part's HTTP host: one keep-alive HTTP/1.1 connection, one request at a time, blocking, as a tool
 * host written with a plain HTTP library does it (Python's {@code http.client}, Node's {@code fetch} with a keep-alive
 * agent). It is deliberately small so that the load generator's own CPU per request stays far below what it measures
 * (the JDK's {@code HttpClient} costs about as much per request as the server it calls). Answers with a
 * {@code Content-Length} or chunked body; anything else is an error.
 */
public final class LoopbackHttp implements AutoCloseable {

    /** One answer: status and body. */
    public record Answer(int status, String body) {
    }

    private final String host;
    private final int port;
    private final String authorization;
    private Socket socket;
    private InputStream in;
    private OutputStream out;

    public LoopbackHttp(String host, int port, String bearerToken) {
        this.host = host;
        this.port = port;
        this.authorization = "Bearer " + bearerToken;
    }

    public Answer post(String pathAndQuery, String json) throws IOException {
        return exchange("POST", pathAndQuery, json.getBytes(StandardCharsets.UTF_8));
    }

    public Answer get(String pathAndQuery) throws IOException {
        return exchange("GET", pathAndQuery, null);
    }

    private Answer exchange(String method, String target, byte[] body) throws IOException {
        try {
            return once(method, target, body);
        } catch (EOFException stale) {
            // the server closed an idle keep-alive connection before this request reached it: nothing was read,
            // so sending it once more on a new connection cannot act twice (and the ids make a repeat a no-op)
            close();
            return once(method, target, body);
        }
    }

    private Answer once(String method, String target, byte[] body) throws IOException {
        if (socket == null) {
            socket = new Socket();
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), 5_000);
            socket.setSoTimeout(120_000);
            in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
            out = socket.getOutputStream();
        }
        StringBuilder head = new StringBuilder(256)
                .append(method).append(' ').append(target).append(" HTTP/1.1\r\n")
                .append("Host: ").append(host).append(':').append(port).append("\r\n")
                .append("Authorization: ").append(authorization).append("\r\n")
                .append("Accept: application/json\r\n");
        if (body != null) {
            head.append("Content-Type: application/json\r\nContent-Length: ").append(body.length).append("\r\n");
        }
        head.append("\r\n");
        byte[] headBytes = head.toString().getBytes(StandardCharsets.ISO_8859_1);
        byte[] request = new byte[headBytes.length + (body == null ? 0 : body.length)];
        System.arraycopy(headBytes, 0, request, 0, headBytes.length);
        if (body != null) {
            System.arraycopy(body, 0, request, headBytes.length, body.length);
        }
        out.write(request);
        out.flush();
        return read();
    }

    private Answer read() throws IOException {
        String status = line();
        if (status == null) {
            throw new EOFException("connection closed before an answer");
        }
        String[] parts = status.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP/1.x status line");
        }
        int code = Integer.parseInt(parts[1]);
        long length = -1;
        boolean chunked = false;
        boolean close = false;
        String header;
        while ((header = line()) != null && !header.isEmpty()) {
            int colon = header.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = header.substring(0, colon).strip().toLowerCase(Locale.ROOT);
            String value = header.substring(colon + 1).strip();
            switch (name) {
                case "content-length" -> length = Long.parseLong(value);
                case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                case "connection" -> close = value.equalsIgnoreCase("close");
                default -> { }
            }
        }
        byte[] body;
        if (chunked) {
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            while (true) {
                String size = line();
                if (size == null) {
                    throw new IOException("chunked body ended early");
                }
                int n = Integer.parseInt(size.split(";", 2)[0].strip(), 16);
                if (n == 0) {
                    while ((header = line()) != null && !header.isEmpty()) {
                        // trailers
                    }
                    break;
                }
                all.write(in.readNBytes(n));
                line();
            }
            body = all.toByteArray();
        } else if (length >= 0) {
            body = in.readNBytes((int) length);
            if (body.length != length) {
                throw new IOException("body ended early");
            }
        } else {
            throw new IOException("an answer without Content-Length or chunked body");
        }
        if (close) {
            close();
        }
        return new Answer(code, new String(body, StandardCharsets.UTF_8));
    }

    /** One CRLF-terminated header line (ISO-8859-1), or null at the end of the stream. */
    private String line() throws IOException {
        StringBuilder b = new StringBuilder(64);
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') {
                int end = b.length();
                if (end > 0 && b.charAt(end - 1) == '\r') {
                    b.setLength(end - 1);
                }
                return b.toString();
            }
            b.append((char) c);
        }
        return b.length() == 0 ? null : b.toString();
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException e) {
                // already closed
            }
            socket = null;
        }
    }
}
