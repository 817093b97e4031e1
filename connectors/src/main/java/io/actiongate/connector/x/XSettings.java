package io.actiongate.connector.x;

import io.actiongate.connector.internal.Settings;
import io.actiongate.connector.internal.http.Credential;
import io.actiongate.connector.spi.ConnectorContext;

import java.net.URI;
import java.time.Duration;
import java.util.regex.Pattern;

/** The X connector's settings, checked once at start. */
record XSettings(
        URI baseUrl,
        Credential credential,
        String userId,
        int lookupMaxResults,
        Duration connectTimeout,
        Duration responseTimeout,
        Duration retryAfterCap) {

    static final String BASE_URL = "base-url";
    static final String CREDENTIAL = "credential";
    static final String USER_ID = "user-id";
    static final String LOOKUP_MAX_RESULTS = "lookup-max-results";
    static final String CONNECT_TIMEOUT_MS = "connect-timeout-ms";
    static final String RESPONSE_TIMEOUT_MS = "response-timeout-ms";
    static final String RETRY_AFTER_CAP_SECONDS = "retry-after-cap-seconds";

    static final String DEFAULT_BASE_URL = "https://api.x.com";
    private static final Pattern USER_ID_SHAPE = Pattern.compile("[0-9]{1,25}");

    static XSettings from(ConnectorContext context) {
        URI base = baseUrl(context.setting(BASE_URL).orElse(DEFAULT_BASE_URL));
        String secret = Settings.secret(context, CREDENTIAL);
        if (secret == null) {
            throw new IllegalArgumentException("missing connector setting '" + CREDENTIAL + "' (a bearer token reference)");
        }
        String userId = context.setting(USER_ID).map(String::strip).filter(s -> !s.isEmpty()).orElse(null);
        if (userId != null && !USER_ID_SHAPE.matcher(userId).matches()) {
            throw new IllegalArgumentException("connector setting '" + USER_ID + "' must be a numeric X user id");
        }
        long max = Settings.longValue(context, LOOKUP_MAX_RESULTS, 100);
        if (max < 5 || max > 100) {
            throw new IllegalArgumentException("connector setting '" + LOOKUP_MAX_RESULTS + "' must be 5..100");
        }
        return new XSettings(base, Credential.of("Authorization", secret), userId, (int) max,
                Settings.millis(context, CONNECT_TIMEOUT_MS, 2_000),
                Settings.millis(context, RESPONSE_TIMEOUT_MS, 10_000),
                Duration.ofSeconds(Settings.longValue(context, RETRY_AFTER_CAP_SECONDS, 600)));
    }

    private static URI baseUrl(String raw) {
        URI uri;
        try {
            uri = URI.create(raw.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("connector setting '" + BASE_URL + "' is not a URL", e);
        }
        if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null
                || uri.getRawUserInfo() != null || uri.getRawQuery() != null) {
            throw new IllegalArgumentException("connector setting '" + BASE_URL + "' must be an http(s) URL");
        }
        String s = uri.toString();
        return URI.create(s.endsWith("/") ? s.substring(0, s.length() - 1) : s);
    }
}
