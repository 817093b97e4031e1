package io.actiongate.sandbox;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A small multipart/form-data reader (RFC 7578) for the sandbox provider: enough to see exactly which bytes a
 * webhook dispatch delivered. Not a general-purpose parser.
 */
public final class MultipartForm {

    /** One part: its form name, content type and exact bytes. */
    public record Part(String name, String contentType, byte[] bytes) {
        @Override
        public String toString() {
            return "Part[" + name + ", " + contentType + ", " + bytes.length + " bytes]";
        }
    }

    private MultipartForm() {
    }

    /** The boundary of a {@code multipart/form-data} content type, if it is one. */
    public static Optional<String> boundary(String contentType) {
        if (contentType == null || !contentType.toLowerCase(Locale.ROOT).startsWith("multipart/form-data")) {
            return Optional.empty();
        }
        for (String param : contentType.split(";")) {
            String p = param.strip();
            if (p.toLowerCase(Locale.ROOT).startsWith("boundary=")) {
                return Optional.of(p.substring(9).replace("\"", ""));
            }
        }
        return Optional.empty();
    }

    /** The parts of {@code body}; throws {@link IllegalArgumentException} on a malformed body. */
    public static List<Part> parse(byte[] body, String boundary) {
        byte[] delimiter = ("--" + boundary).getBytes(StandardCharsets.US_ASCII);
        byte[] separator = ("\r\n--" + boundary).getBytes(StandardCharsets.US_ASCII);
        int at = indexOf(body, delimiter, 0);
        if (at != 0) {
            throw new IllegalArgumentException("body does not start with the boundary");
        }
        List<Part> parts = new ArrayList<>();
        int cursor = delimiter.length;
        while (true) {
            if (startsWith(body, cursor, "--")) {
                return parts;
            }
            if (!startsWith(body, cursor, "\r\n")) {
                throw new IllegalArgumentException("malformed boundary line");
            }
            int headersStart = cursor + 2;
            int headersEnd = indexOf(body, "\r\n\r\n".getBytes(StandardCharsets.US_ASCII), headersStart);
            if (headersEnd < 0) {
                throw new IllegalArgumentException("part without header end");
            }
            String headers = new String(body, headersStart, headersEnd - headersStart, StandardCharsets.US_ASCII);
            int contentStart = headersEnd + 4;
            int contentEnd = indexOf(body, separator, contentStart);
            if (contentEnd < 0) {
                throw new IllegalArgumentException("part without closing boundary");
            }
            parts.add(new Part(header(headers, "content-disposition").flatMap(MultipartForm::formName).orElse(""),
                    header(headers, "content-type").orElse("text/plain"),
                    Arrays.copyOfRange(body, contentStart, contentEnd)));
            cursor = contentEnd + separator.length;
        }
    }

    private static Optional<String> header(String headers, String name) {
        for (String line : headers.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).strip().toLowerCase(Locale.ROOT).equals(name)) {
                return Optional.of(line.substring(colon + 1).strip());
            }
        }
        return Optional.empty();
    }

    private static Optional<String> formName(String disposition) {
        for (String param : disposition.split(";")) {
            String p = param.strip();
            if (p.startsWith("name=")) {
                return Optional.of(p.substring(5).replace("\"", ""));
            }
        }
        return Optional.empty();
    }

    private static boolean startsWith(byte[] body, int at, String text) {
        byte[] t = text.getBytes(StandardCharsets.US_ASCII);
        return at + t.length <= body.length && Arrays.equals(body, at, at + t.length, t, 0, t.length);
    }

    private static int indexOf(byte[] haystack, byte[] needle, int from) {
        outer:
        for (int i = from; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
