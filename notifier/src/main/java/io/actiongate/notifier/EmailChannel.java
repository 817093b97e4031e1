package io.actiongate.notifier;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.ConnectorRegistry;
import io.actiongate.connector.spi.DispatchRequest;
import io.actiongate.connector.spi.DispatchResult;

/**
 * Email through the smtp connector's own client (connectors/README.md, smtp), built through the SPI from the
 * {@code notifier.smtp.*} settings: one plain-text message per address, the connector's bounds and
 * {@code allowed-domains} checked before anything is claimed, its outcome table read as a {@link Delivery}, and a
 * {@code Message-ID} derived from the notice id and the address (the connector's, from the idempotency key).
 */
final class EmailChannel implements AutoCloseable {

    static final String PROVIDER = "smtp";
    static final String OPERATION = "send_email";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ConnectorRegistry registry;
    private final Connector smtp;

    private EmailChannel(ConnectorRegistry registry, Connector smtp) {
        this.registry = registry;
        this.smtp = smtp;
    }

    /** The smtp connector built from {@code settings} (the keys after {@code notifier.smtp.}). */
    static EmailChannel of(Map<String, String> settings) {
        Map<String, String> config = new HashMap<>();
        settings.forEach((k, v) -> config.put(ConnectorRegistry.PREFIX + PROVIDER + "." + k, v));
        ConnectorRegistry registry;
        try {
            registry = ConnectorRegistry.load(config);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(NotifierConfig.SMTP_PREFIX + "*: " + e.getMessage(), e);
        }
        Connector smtp = registry.find(PROVIDER).orElse(null);
        if (smtp == null) {
            registry.close();
            throw new IllegalStateException("the smtp connector is not on the class path");
        }
        return new EmailChannel(registry, smtp);
    }

    /** Whether the connector would send to {@code address} (one bare address in an allowed domain). */
    boolean accepts(String address) {
        return smtp.classifier().validate(OPERATION, input(address, "probe", "probe")).valid();
    }

    Delivery send(Notice n, String address) {
        String input = input(address, NoticeMessages.emailSubject(n), NoticeMessages.emailBody(n));
        DispatchResult result = smtp.dispatch(new DispatchRequest(n.action().taskId(), n.action().toolCallId(), 1,
                n.id() + "/" + address, n.orgId(), PROVIDER, OPERATION, OPERATION, input, List.of(),
                Instant.now().plusSeconds(300)));
        return switch (result.status()) {
            case SUCCEEDED -> Delivery.DELIVERED;
            case UNKNOWN -> Delivery.UNKNOWN;
            case FAILED -> Delivery.REFUSED;
            case RETRYABLE, NOT_DISPATCHED -> result.dispatched() ? Delivery.UNKNOWN : Delivery.NOT_SENT;
        };
    }

    private static String input(String to, String subject, String body) {
        try {
            return JSON.writeValueAsString(Map.of("to", to, "subject", subject, "body", body));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        registry.close();
    }
}
