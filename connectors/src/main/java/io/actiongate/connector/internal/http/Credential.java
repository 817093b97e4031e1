package io.actiongate.connector.internal.http;

import java.net.http.HttpRequest;
import java.util.Locale;

/**
 * The header a connector authenticates with. {@code Authorization} values get the {@code Bearer} scheme;
 * any other header carries the secret as is. {@link #toString()} never shows the secret.
 */
public final class Credential {

    private final String header;
    private final String value;
    private final String secret;

    private Credential(String header, String value, String secret) {
        this.header = header;
        this.value = value;
        this.secret = secret;
    }

    /** Null when there is no secret: requests then go out without a credential header. */
    public static Credential of(String headerName, String secret) {
        if (secret == null || secret.isEmpty()) {
            return null;
        }
        if (secret.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            throw new IllegalArgumentException("the credential holds control characters");
        }
        String header = headerName == null || headerName.isBlank() ? "Authorization" : headerName.strip();
        String value = header.toLowerCase(Locale.ROOT).equals("authorization") ? "Bearer " + secret : secret;
        return new Credential(header, value, secret);
    }

    public void apply(HttpRequest.Builder request) {
        request.header(header, value);
    }

    /** The raw secret, for redaction lists only. */
    public String secret() {
        return secret;
    }

    @Override
    public String toString() {
        return "Credential[" + header + "=[redacted]]";
    }
}
