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
        String statusLine;
        try {
            statusLine = line();
        } catch (SocketException e) {
            return null; // reset by the server
        }
        if (statusLine == null) {
            return null;
        }
        int status = Integer.parseInt(statusLine.split(" ", 3)[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (String header = required(line()); !header.isEmpty(); header = required(line())) {
            int colon = header.indexOf(':');
            if (colon > 0) {
                headers.put(header.substring(0, colon).strip().toLowerCase(Locale.ROOT),
                        header.substring(colon + 1).strip());
            }
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            int size;
            while ((size = Integer.parseInt(required(line()).split(";", 2)[0].strip(), 16)) > 0) {
                body.write(exactly(size));
                required(line());
            }
            while (!required(line()).isEmpty()) {
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

    private static String required(String line) throws IOException {
        if (line == null) {
            throw new IOException("the connection ended inside an answer");
        }
        return line;
    }

    /** One line without its CRLF, or null when the connection ended before it began. */
    private String line() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != '\n') {
            if (b < 0) {
                if (line.size() == 0) {
                    return null;
                }
                throw new IOException("the connection ended inside a line: " + line);
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
