package io.actiongate.connector.webhook;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

import io.actiongate.connector.spi.Attachment;
import io.actiongate.connector.spi.DispatchRequest;

/**
 * The body of a webhook dispatch, built in memory. Without attachments it is the input JSON as is
 * ({@code application/json}). With attachments it is {@code multipart/form-data} (RFC 7578): a part named
 * {@code input} holding the input JSON exactly, then one part named {@code attachment} per attachment, in the
 * action's order, with its content type and a neutral file name {@code attachment-N}; never an object key, a
 * local path or a URL.
 */
record WebhookBody(String contentType, byte[] bytes) {

    private static final SecureRandom RANDOM = new SecureRandom();

    /** Empty when an attachment's bytes were not loaded by the executor: nothing is sent then. */
    static Optional<WebhookBody> of(DispatchRequest request) {
        byte[] input = request.inputJson().getBytes(StandardCharsets.UTF_8);
        List<Attachment> attachments = request.attachments();
        if (attachments.isEmpty()) {
            return Optional.of(new WebhookBody("application/json", input));
        }
        if (!attachments.stream().allMatch(Attachment::hasContent)) {
            return Optional.empty();
        }
        String boundary = boundary(input, attachments);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        part(out, boundary, "form-data; name=\"input\"", "application/json", input);
        for (int i = 0; i < attachments.size(); i++) {
            Attachment a = attachments.get(i);
            part(out, boundary, "form-data; name=\"attachment\"; filename=\"attachment-" + (i + 1) + "\"",
                    headerSafe(a.contentType()), a.content());
        }
        out.writeBytes(("--" + boundary + "--\r\n").getBytes(StandardCharsets.US_ASCII));
        return Optional.of(new WebhookBody("multipart/form-data; boundary=" + boundary, out.toByteArray()));
    }

    private static void part(ByteArrayOutputStream out, String boundary, String disposition, String type,
                             byte[] content) {
        out.writeBytes(("--" + boundary + "\r\nContent-Disposition: " + disposition + "\r\nContent-Type: " + type
                + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(content);
        out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
    }

    /** A random boundary that occurs in no part (checked, not just assumed). */
    private static String boundary(byte[] input, List<Attachment> attachments) {
        while (true) {
            byte[] random = new byte[16];
            RANDOM.nextBytes(random);
            String boundary = "actiongate-" + HexFormat.of().formatHex(random);
            byte[] marker = boundary.getBytes(StandardCharsets.US_ASCII);
            if (!contains(input, marker) && attachments.stream().noneMatch(a -> contains(a.content(), marker))) {
                return boundary;
            }
        }
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /** A content type fit for a part header: printable ASCII without line breaks, else octet-stream. */
    private static String headerSafe(String contentType) {
        if (contentType == null || contentType.isBlank()
                || !contentType.chars().allMatch(c -> c >= 0x20 && c < 0x7f)) {
            return "application/octet-stream";
        }
        return contentType;
    }
}
