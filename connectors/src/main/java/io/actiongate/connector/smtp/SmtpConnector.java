package io.actiongate.connector.smtp;

import io.actiongate.secrets.Redaction;
import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.DispatchRequest;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.ErrorCodes;
import io.actiongate.connector.spi.LookupRequest;
import io.actiongate.connector.spi.LookupResult;
import io.actiongate.connector.spi.OperationClassifier;
import io.actiongate.connector.spi.Validation;
import jakarta.mail.Folder;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Store;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.search.HeaderTerm;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Properties;

/**
 * Sends one plain-text email per action through SMTP and reconciles by searching an IMAP folder for the
 * deterministic {@code Message-ID}. See {@link SmtpOutcomes} for the outcome table.
 */
public final class SmtpConnector implements Connector {

    private static final Logger LOG = LoggerFactory.getLogger(SmtpConnector.class);

    static final String OPERATION = SmtpClassifier.OPERATION;
    /** The one reply that means "accepted for delivery" after the final dot (RFC 5321 section 4.2.5). */
    static final int ACCEPTED = 250;

    private final SmtpSettings settings;
    private final Session session;
    private final SmtpOutcomes outcomes;
    private final java.time.Clock clock;
    private final SmtpClassifier classifier;

    SmtpConnector(SmtpSettings settings, java.time.Clock clock) {
        this.settings = settings;
        this.clock = clock;
        this.classifier = new SmtpClassifier(settings.allowedDomains());
        this.session = Session.getInstance(properties(settings));
        List<String> secrets = new ArrayList<>();
        if (settings.password() != null) {
            secrets.add(settings.password());
        }
        if (settings.imapPassword() != null) {
            secrets.add(settings.imapPassword());
        }
        this.outcomes = new SmtpOutcomes(List.copyOf(secrets));
    }

    static Properties properties(SmtpSettings s) {
        Properties p = new Properties();
        p.put("mail.smtp.host", s.host());
        p.put("mail.smtp.port", String.valueOf(s.port()));
        p.put("mail.smtp.connectiontimeout", String.valueOf(s.connectTimeout().toMillis()));
        p.put("mail.smtp.timeout", String.valueOf(s.timeout().toMillis()));
        p.put("mail.smtp.writetimeout", String.valueOf(s.timeout().toMillis()));
        p.put("mail.smtp.from", s.from());
        p.put("mail.smtp.localhost", s.messageIdDomain());
        p.put("mail.smtp.quitwait", "false");
        // DATA, never BDAT: the 354 reply is what tells "content not yet sent" from "maybe sent"
        p.put("mail.smtp.chunksize", "0");
        p.put("mail.smtp.auth", String.valueOf(s.username() != null));
        if (s.starttls()) {
            p.put("mail.smtp.starttls.enable", "true");
            p.put("mail.smtp.starttls.required", "true");
        }
        String imap = s.imapSsl() ? "imaps" : "imap";
        p.put("mail." + imap + ".connectiontimeout", String.valueOf(s.connectTimeout().toMillis()));
        p.put("mail." + imap + ".timeout", String.valueOf(s.timeout().toMillis()));
        p.put("mail." + imap + ".writetimeout", String.valueOf(s.timeout().toMillis()));
        return p;
    }

    @Override
    public String provider() {
        return SmtpConnectorFactory.PROVIDER;
    }

    @Override
    public OperationClassifier classifier() {
        return classifier;
    }

    @Override
    public DispatchResult dispatch(DispatchRequest request) {
        Validation validation = classifier.validate(request.operation(), request.inputJson());
        if (!validation.valid()) {
            return DispatchResult.refusedBeforeSending(ErrorCodes.SCHEMA_INVALID, validation.violation());
        }
        if (!request.attachments().isEmpty()) {
            return DispatchResult.refusedBeforeSending(ErrorCodes.SCHEMA_INVALID, "smtp sends no attachments");
        }
        EmailInput email = EmailInput.parse(request.inputJson(), settings.allowedDomains()).input();
        String messageId = MessageIds.forKey(request.idempotencyKey(), settings.messageIdDomain());
        DispatchResult result = send(email, messageId, request.actionKey());
        LOG.info("smtp dispatch action={} attempt={} domain={} status={} reply={} error={}", request.actionKey(),
                request.attempt(), email.domain(), result.status(), result.httpStatus(), result.errorCode());
        return result;
    }

    private DispatchResult send(EmailInput email, String messageId, String actionKey) {
        MimeMessage message;
        try {
            message = message(email, messageId, actionKey);
        } catch (MessagingException e) {
            return DispatchResult.refusedBeforeSending(ErrorCodes.SCHEMA_INVALID, "message could not be built");
        }
        PhaseTrackingTransport transport = new PhaseTrackingTransport(session, settings.host(), settings.port());
        try {
            try {
                transport.connect(settings.host(), settings.port(), settings.username(), settings.password());
            } catch (MessagingException e) {
                return outcomes.connectFailed(e);
            }
            try {
                transport.sendMessage(message, message.getAllRecipients());
            } catch (MessagingException e) {
                return outcomes.sendFailed(e, transport.contentStarted());
            }
            return accepted(transport.getLastReturnCode(), messageId);
        } finally {
            try {
                transport.close();
            } catch (MessagingException e) {
                LOG.debug("smtp close failed after the outcome was known: {}", e.getClass().getSimpleName());
            }
        }
    }

    /**
     * The domain check of a send that raised no error: SUCCEEDED only on the 250 that accepts the message, and the
     * receipt is our own Message-ID only when it has the documented form. Anything else cannot prove acceptance.
     */
    static DispatchResult accepted(int lastReply, String messageId) {
        if (lastReply != ACCEPTED) {
            return DispatchResult.unknown(lastReply > 0 ? lastReply : null, ErrorCodes.UNEXPECTED_RESPONSE,
                    "SMTP send ended without the 250 that accepts the message; cannot tell whether it was accepted");
        }
        return DispatchResult.succeeded(lastReply, MessageIds.isWellFormed(messageId) ? messageId : null);
    }

    private MimeMessage message(EmailInput email, String messageId, String actionKey) throws MessagingException {
        MimeMessage message = new FixedIdMessage(session, messageId);
        message.setFrom(new InternetAddress(settings.from(), true));
        message.setRecipient(Message.RecipientType.TO, new InternetAddress(email.to(), true));
        message.setSubject(email.subject(), "UTF-8");
        message.setText(email.body(), "UTF-8", "plain");
        message.setSentDate(Date.from(clock.instant()));
        message.setHeader("X-ActionGate-Action", actionKey);
        message.saveChanges();
        return message;
    }

    @Override
    public LookupResult lookup(LookupRequest request) {
        if (settings.imapHost() == null) {
            return LookupResult.stillUnknown("no imap-host configured; cannot search for the message");
        }
        String messageId = MessageIds.forKey(request.idempotencyKey(), settings.messageIdDomain());
        LookupResult result;
        try {
            result = search(messageId);
        } catch (MessagingException | RuntimeException e) {
            result = LookupResult.stillUnknown("IMAP search failed: "
                    + Redaction.snippet(e.getClass().getSimpleName(), 60, List.of()));
        }
        LOG.info("smtp lookup action={}/{} folder={} verdict={}", request.taskId(), request.toolCallId(),
                settings.imapFolder(), result.verdict());
        return result;
    }

    private LookupResult search(String messageId) throws MessagingException {
        try (Store store = session.getStore(settings.imapSsl() ? "imaps" : "imap")) {
            store.connect(settings.imapHost(), settings.imapPort(), settings.imapUsername(), settings.imapPassword());
            Folder folder = store.getFolder(settings.imapFolder());
            if (!folder.exists()) {
                return LookupResult.stillUnknown("IMAP folder does not exist");
            }
            folder.open(Folder.READ_ONLY);
            try {
                for (Message candidate : folder.search(new HeaderTerm("Message-ID", messageId))) {
                    String[] ids = candidate.getHeader("Message-ID");
                    if (ids != null && List.of(ids).stream().anyMatch(id -> id.strip().equals(messageId))) {
                        return LookupResult.confirmed("a message with this Message-ID is in the audit folder", messageId);
                    }
                }
            } finally {
                folder.close(false);
            }
        }
        if (settings.imapAuthoritative()) {
            return LookupResult.noEffect("no message with this Message-ID in the authoritative folder");
        }
        return LookupResult.stillUnknown("no message with this Message-ID in the folder, which is not authoritative");
    }

    /** Keeps our Message-ID: {@link MimeMessage#saveChanges()} would otherwise invent a random one. */
    private static final class FixedIdMessage extends MimeMessage {
        private final String messageId;

        FixedIdMessage(Session session, String messageId) {
            super(session);
            this.messageId = messageId;
        }

        @Override
        protected void updateMessageID() throws MessagingException {
            setHeader("Message-ID", messageId);
        }
    }
}
