package io.actiongate.connector.webhook;

import io.actiongate.connector.internal.Settings;
import io.actiongate.connector.internal.http.Credential;
import io.actiongate.connector.spi.ConnectorContext;

import java.net.URI;
import java.time.Duration;

/** The webhook connector's settings, checked once at start. */
record WebhookSettings(
        URI baseUrl,
        WebhookClassifier classifier,
        Duration connectTimeout,
        Duration responseTimeout,
        Duration retryAfterCap,
        Credential credential) {

    static final String BASE_URL = "base-url";
    static final String CONNECT_TIMEOUT_MS = "connect-timeout-ms";
    static final String RESPONSE_TIMEOUT_MS = "response-timeout-ms";
    static final String RETRY_AFTER_CAP_SECONDS = "retry-after-cap-seconds";
    static final String CREDENTIAL = "credential";
    static final String CREDENTIAL_HEADER = "credential-header";

    static WebhookSettings from(ConnectorContext context) {
        URI base = baseUrl(context.requiredSetting(BASE_URL));
        WebhookClassifier classifier = WebhookClassifier.from(context);
        return new WebhookSettings(base, classifier,
                Settings.millis(context, CONNECT_TIMEOUT_MS, 2_000),
                Settings.millis(context, RESPONSE_TIMEOUT_MS, 10_000),
                Duration.ofSeconds(Settings.longValue(context, RETRY_AFTER_CAP_SECONDS, 600)),
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
}
