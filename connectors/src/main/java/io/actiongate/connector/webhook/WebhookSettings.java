package io.actiongate.connector.webhook;

import io.actiongate.connector.internal.Settings;
import io.actiongate.connector.internal.http.Credential;
import io.actiongate.connector.spi.ConnectorContext;

import java.net.URI;
import java.time.Duration;
import java.util.Set;
import java.util.regex.Pattern;

/** The webhook connector's settings, checked once at start. */
record WebhookSettings(
        URI baseUrl,
        Set<String> effectOperations,
        Set<String> readOperations,
        Duration connectTimeout,
        Duration responseTimeout,
        Duration retryAfterCap,
        long maxInputBytes,
        Credential credential) {

    static final String BASE_URL = "base-url";
    static final String OPERATIONS = "operations";
    static final String READ_OPERATIONS = "read-operations";
    static final String CONNECT_TIMEOUT_MS = "connect-timeout-ms";
    static final String RESPONSE_TIMEOUT_MS = "response-timeout-ms";
    static final String RETRY_AFTER_CAP_SECONDS = "retry-after-cap-seconds";
    static final String MAX_INPUT_BYTES = "max-input-bytes";
    static final String CREDENTIAL = "credential";
    static final String CREDENTIAL_HEADER = "credential-header";

    /** An operation becomes one path segment: no slashes, dots-only names or encodings. */
    static final Pattern OPERATION = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");

    static WebhookSettings from(ConnectorContext context) {
        URI base = baseUrl(context.requiredSetting(BASE_URL));
        Set<String> effects = Settings.list(context, OPERATIONS);
        Set<String> reads = Settings.list(context, READ_OPERATIONS);
        for (String op : union(effects, reads)) {
            if (!OPERATION.matcher(op).matches()) {
                throw new IllegalArgumentException("operation names must match " + OPERATION.pattern());
            }
        }
        if (effects.stream().anyMatch(reads::contains)) {
            throw new IllegalArgumentException("an operation cannot be both in '" + OPERATIONS + "' and '"
                    + READ_OPERATIONS + "'");
        }
        long maxInput = Settings.longValue(context, MAX_INPUT_BYTES, 256 * 1024);
        if (maxInput <= 0) {
            throw new IllegalArgumentException("connector setting '" + MAX_INPUT_BYTES + "' must be positive");
        }
        return new WebhookSettings(base, effects, reads,
                Settings.millis(context, CONNECT_TIMEOUT_MS, 2_000),
                Settings.millis(context, RESPONSE_TIMEOUT_MS, 10_000),
                Duration.ofSeconds(Settings.longValue(context, RETRY_AFTER_CAP_SECONDS, 600)),
                maxInput,
                Credential.of(context.setting(CREDENTIAL_HEADER).orElse(null), Settings.secret(context, CREDENTIAL)));
    }

    static URI baseUrl(String raw) {
        URI uri;
        try {
            uri = URI.create(raw.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("connector setting '" + BASE_URL + "' is not a URL", e);
        }
        if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null
                || uri.getRawUserInfo() != null || uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("connector setting '" + BASE_URL
                    + "' must be an http(s) URL without user info, query or fragment");
        }
        String s = uri.toString();
        return URI.create(s.endsWith("/") ? s.substring(0, s.length() - 1) : s);
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        java.util.Set<String> all = new java.util.HashSet<>(a);
        all.addAll(b);
        return all;
    }
}
