package io.actiongate.http;

import java.util.Optional;

import io.actiongate.scan.CredentialScanner;

/**
 * Input text an error answer or a log line may repeat: only what the credential scanner passes (an id of the id alphabet can be a
 * token: {@code ghp_...} is one). A refusal names the API's own members and positions; an id of the caller's comes
 * back only through here.
 */
final class Echo {

    private static final CredentialScanner SCANNER = CredentialScanner.defaults();

    private Echo() {
    }

    /** {@code text} when the scanner finds no credential material in it, else empty. */
    static Optional<String> ifScanned(String text) {
        return text == null || SCANNER.scan(text).isPresent() ? Optional.empty() : Optional.of(text);
    }

    /**
     * {@code text} (a raw path, say) for a log line: as it is when the scanner passes it and its %xx-decoded form,
     * else a mark that names no part of it.
     */
    static String forLog(String text) {
        if (text == null) {
            return "-";
        }
        String decoded;
        try {
            decoded = java.net.URLDecoder.decode(text.replace("+", "%2B"), java.nio.charset.StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            decoded = text;
        }
        return ifScanned(text).isPresent() && ifScanned(decoded).isPresent() ? text
                : "(withheld: it holds credential material)";
    }
}
