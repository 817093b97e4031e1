package io.actiongate.connector.smtp;

import io.actiongate.connector.internal.Settings;
import io.actiongate.connector.spi.ConnectorContext;
import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;

import java.time.Duration;
import java.util.Set;
import java.util.regex.Pattern;

/** The smtp connector's settings, checked once at start. Passwords are resolved from secret references. */
record SmtpSettings(
        String host,
        int port,
        String from,
        String username,
        String password,
        boolean starttls,
        Duration connectTimeout,
        Duration timeout,
        Set<String> allowedDomains,
        String messageIdDomain,
        String imapHost,
        int imapPort,
        boolean imapSsl,
        String imapUsername,
        String imapPassword,
        String imapFolder,
        boolean imapAuthoritative) {

    static final Pattern DOMAIN = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*");

    static SmtpSettings from(ConnectorContext context) {
        String host = context.requiredSetting("host").strip();
        String from = context.requiredSetting("from").strip();
        try {
            new InternetAddress(from, true).validate();
        } catch (AddressException e) {
            throw new IllegalArgumentException("connector setting 'from' is not an email address", e);
        }
        Set<String> domains = SmtpClassifier.allowedDomains(context);
        String idDomain = context.setting("message-id-domain").map(String::strip).orElse("actiongate.local")
                .toLowerCase(java.util.Locale.ROOT);
        if (!DOMAIN.matcher(idDomain).matches()) {
            throw new IllegalArgumentException("connector setting 'message-id-domain' is not a domain");
        }
        String username = context.setting("username").filter(s -> !s.isBlank()).orElse(null);
        return new SmtpSettings(host,
                Settings.port(context, "port", 25),
                from,
                username,
                Settings.secret(context, "password"),
                Settings.bool(context, "starttls", false),
                Settings.millis(context, "connect-timeout-ms", 2_000),
                Settings.millis(context, "timeout-ms", 10_000),
                domains,
                idDomain,
                context.setting("imap-host").filter(s -> !s.isBlank()).orElse(null),
                Settings.port(context, "imap-port", Settings.bool(context, "imap-ssl", false) ? 993 : 143),
                Settings.bool(context, "imap-ssl", false),
                context.setting("imap-username").filter(s -> !s.isBlank()).orElse(null),
                Settings.secret(context, "imap-password"),
                context.setting("imap-folder").filter(s -> !s.isBlank()).orElse("INBOX"),
                Settings.bool(context, "imap-authoritative", false));
    }

    @Override
    public String toString() {
        return "SmtpSettings[host=" + host + ", port=" + port + ", imapHost=" + imapHost + ", imapFolder=" + imapFolder
                + ", password=[redacted], imapPassword=[redacted]]";
    }
}
