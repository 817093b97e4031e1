package io.actiongate.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One HTTP/1.1 connection written and read byte for byte, as a careless or hostile client drives it: a request's
 * head and body leave when the test says, answers are read by their {@code Content-Length}, so a test sees what a
 * kept-alive client sees on that connection, including a close nobody announced.
 */
public final class RawHttp implements AutoCloseable {

    /** One answer: the status, the headers by lower-case name (the last of a name), the body as text. */
    public record Answer(int status, Map<String, String> headers, String body) {
        /** Whether the answer told the client that the connection ends with it. */
        public boolean saysClose() {
            String connection = headers.get("connection");
            return connection != null && connection.toLowerCase(Locale.ROOT).contains("close");
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    public RawHttp(String host, int port) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress(host, port), 5_000);
        socket.setSoTimeout(10_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    /** Writes {@code text} now; false when the server had already closed the connection. */
    public boolean send(String text) {
        try {
            out.write(text.getBytes(StandardCharsets.UTF_8));
            out.flush();
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The next answer on this connection, or null when the server closed it before one began. */
    public Answer read() throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b;
            try {
                b = in.read();
            } catch (SocketException e) {
                b = -1; // reset by the server
            }
            if (b < 0) {
                if (head.size() == 0) {
                    return null;
                }
                throw new IOException("the connection ended inside an answer's head: " + head);
            }
            head.write(b);
            matched = b == (matched % 2 == 0 ? '\r' : '\n') ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ", 3)[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.put(lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT),
                        lines[i].substring(colon + 1).strip());
            }
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            int size;
            while ((size = Integer.parseInt(line().split(";", 2)[0].strip(), 16)) > 0) {
                body.write(exactly(size));
                line();
            }
            while (!line().isEmpty()) {
                // trailers
            }
        } else {
            body.write(exactly(Integer.parseInt(headers.getOrDefault("content-length", "0"))));
        }
        return new Answer(status, headers, body.toString(StandardCharsets.UTF_8));
    }

    private byte[] exactly(int length) throws IOException {
        byte[] bytes = in.readNBytes(length);
        if (bytes.length < length) {
            throw new IOException("the connection ended inside an answer's body");
        }
        return bytes;
    }

    private String line() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != '\n') {
            if (b < 0) {
                throw new IOException("the connection ended inside an answer's body");
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.ISO_8859_1);
    }

    /** A request's head with a {@code Content-Length}, and any other header lines given ({@code "Name: value"}). */
    public static String head(String method, String target, int contentLength, String... headers) {
        StringBuilder h = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\n")
                .append("Host: 127.0.0.1\r\n");
        for (String header : headers) {
            h.append(header).append("\r\n");
        }
        return h.append("Content-Length: ").append(contentLength).append("\r\n\r\n").toString();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
