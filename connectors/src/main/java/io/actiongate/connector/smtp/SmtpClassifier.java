package io.actiongate.connector.smtp;

import com.fasterxml.jackson.databind.JsonNode;
import io.actiongate.connector.internal.Settings;
import io.actiongate.connector.spi.Classification;
import io.actiongate.connector.spi.ConnectorContext;
import io.actiongate.connector.spi.OperationClassifier;
import io.actiongate.connector.spi.Validation;

import java.util.Set;

/**
 * smtp's classification: {@code send_email} is an effect, nothing else is supported; {@code validate} checks the
 * email shape and the recipient domain against {@code allowed-domains}. Reads no credential (the SMTP and IMAP
 * passwords are for sending and looking up only).
 */
public final class SmtpClassifier implements OperationClassifier {

    static final String OPERATION = "send_email";
    static final String ALLOWED_DOMAINS = "allowed-domains";
    /** Far above any valid input (subject 80 + body 600 code points): nothing longer is even parsed. */
    private static final int MAX_INPUT_CHARS = 16 * 1024;

    private final Set<String> allowedDomains;

    SmtpClassifier(Set<String> allowedDomains) {
        this.allowedDomains = Set.copyOf(allowedDomains);
    }

    static SmtpClassifier from(ConnectorContext context) {
        return new SmtpClassifier(allowedDomains(context));
    }

    static Set<String> allowedDomains(ConnectorContext context) {
        Set<String> domains = Settings.lowerCaseList(context, ALLOWED_DOMAINS);
        if (domains.isEmpty()) {
            throw new IllegalArgumentException("missing connector setting '" + ALLOWED_DOMAINS + "'");
        }
        for (String domain : domains) {
            if (!SmtpSettings.DOMAIN.matcher(domain).matches()) {
                throw new IllegalArgumentException("connector setting '" + ALLOWED_DOMAINS
                        + "' holds a malformed domain");
            }
        }
        return domains;
    }

    @Override
    public String provider() {
        return SmtpConnectorFactory.PROVIDER;
    }

    @Override
    public Classification classify(String operation, String inputJson) {
        return OPERATION.equals(operation)
                ? Classification.effect("sends an email")
                : Classification.unsupported("smtp supports only 'send_email'");
    }

    @Override
    public Validation validate(String operation, String inputJson) {
        return validate(operation, inputJson, null);
    }

    @Override
    public Validation validate(String operation, String inputJson, JsonNode parsedInput) {
        if (!OPERATION.equals(operation)) {
            return Validation.invalid("smtp supports only 'send_email'");
        }
        if (inputJson != null && inputJson.length() > MAX_INPUT_CHARS) {
            return Validation.invalid("input larger than " + MAX_INPUT_CHARS + " characters");
        }
        EmailInput.Parsed parsed = EmailInput.parse(inputJson, parsedInput, allowedDomains);
        return parsed.input() == null ? Validation.invalid(parsed.violation()) : Validation.ok();
    }
}
