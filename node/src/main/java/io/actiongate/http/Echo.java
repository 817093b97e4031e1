package io.actiongate.http;

import java.util.Optional;

import io.actiongate.scan.CredentialScanner;

/**
 * Input text an error answer may repeat: only what the credential scanner passes (an id of the id alphabet can be a
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
}
