package io.actiongate.connector.smtp;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import io.actiongate.connector.spi.DispatchRequest;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.DispatchResult.Status;
import io.actiongate.connector.spi.ErrorCodes;
import io.actiongate.connector.spi.LookupResult.Verdict;
import io.actiongate.connector.testing.LocalHttpServer;
import io.actiongate.connector.testing.LogCapture;
import io.actiongate.connector.testing.Requests;
import io.actiongate.connector.testing.TestContext;
import jakarta.mail.Message;
import jakarta.mail.internet.MimeMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SmtpConnectorTest {

    static final String SMTP_PASSWORD = "smtp-pass-Xy7!";
    static final String IMAP_PASSWORD = "imap-pass-Qw3!";
    static final String INPUT = "{\"to\":\"alice@example.com\",\"subject\":\"Deploy finished\","
            + "\"body\":\"The deploy of build 42 finished.\\nNo action needed.\"}";

    private GreenMail mail;

    @BeforeEach
    void start() {
        mail = new GreenMail(new ServerSetup[] {
                new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP).dynamicPort(),
                new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_IMAP).dynamicPort()});
        mail.start();
        mail.setUser("gate@actiongate.test", "gate", SMTP_PASSWORD);
        mail.setUser("alice@example.com", "alice", IMAP_PASSWORD);
    }

    @AfterEach
    void stop() {
        mail.stop();
    }

    private Map<String, String> baseSettings() {
        Map<String, String> s = new HashMap<>();
        s.put("host", "127.0.0.1");
        s.put("port", String.valueOf(mail.getSmtp().getPort()));
        s.put("from", "gate@actiongate.test");
        s.put("username", "gate");
        s.put("password", "env:SMTP_PASSWORD");
        s.put("allowed-domains", "example.com, Example.org");
        s.put("message-id-domain", "gate.example.net");
        s.put("connect-timeout-ms", "3000");
        s.put("timeout-ms", "5000");
        s.put("imap-host", "127.0.0.1");
        s.put("imap-port", String.valueOf(mail.getImap().getPort()));
        s.put("imap-username", "alice");
        s.put("imap-password", "file:/run/secrets/imap");
        return s;
    }

    private SmtpConnector connector(Map<String, String> overrides) {
        Map<String, String> s = baseSettings();
        s.putAll(overrides);
        TestContext context = TestContext.of(s, Map.of("env:SMTP_PASSWORD", SMTP_PASSWORD,
                "file:/run/secrets/imap", IMAP_PASSWORD));
        return new SmtpConnector(SmtpSettings.from(context), Clock.fixed(Instant.parse("2026-11-30T02:00:00Z"),
                ZoneOffset.UTC));
    }

    private SmtpConnector connector() {
        return connector(Map.of());
    }

    private static DispatchRequest send(String input, String key) {
        return Requests.dispatch("smtp", "send_email", input, key);
    }

    @Test
    void shouldSendOnePlainTextMailWithDeterministicMessageId() throws Exception {
        DispatchResult result = connector().dispatch(send(INPUT, "key-1"));

        assertThat(result.status()).isEqualTo(Status.SUCCEEDED);
        assertThat(result.httpStatus()).isEqualTo(250);
        String expectedId = MessageIds.forKey("key-1", "gate.example.net");
        assertThat(result.providerReceiptId()).isEqualTo(expectedId);
        MimeMessage[] received = mail.getReceivedMessages();
        assertThat(received).hasSize(1);
        MimeMessage m = received[0];
        assertThat(m.getMessageID()).isEqualTo(expectedId);
        assertThat(m.getRecipients(Message.RecipientType.TO)).extracting(Object::toString)
                .containsExactly("alice@example.com");
        assertThat(m.getRecipients(Message.RecipientType.CC)).isNull();
        assertThat(m.getFrom()).extracting(Object::toString).containsExactly("gate@actiongate.test");
        assertThat(m.getSubject()).isEqualTo("Deploy finished");
        assertThat(m.getContentType()).startsWith("text/plain");
        assertThat(((String) m.getContent()).replace("\r\n", "\n"))
                .isEqualTo("The deploy of build 42 finished.\nNo action needed.");
        assertThat(m.getHeader("X-ActionGate-Action")).containsExactly("T-1/C-1");
    }

    @Test
    void shouldDeriveMessageIdFromIdempotencyKeyOnly() {
        String a = MessageIds.forKey("key-1", "d.example");

        assertThat(MessageIds.forKey("key-1", "d.example")).isEqualTo(a);
        assertThat(MessageIds.forKey("key-2", "d.example")).isNotEqualTo(a);
        assertThat(a).matches("<[0-9a-f]{32}@d\\.example>");
        // SHA-256("key-1") starts with these 32 hex characters
        assertThat(a).isEqualTo("<" + java.util.HexFormat.of().formatHex(sha256("key-1")).substring(0, 32)
                + "@d.example>");
    }

    private static byte[] sha256(String s) {
        try {
            return java.security.MessageDigest.getInstance("SHA-256").digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void shouldConfirmEffectWhenMessageIdIsInTheFolder() {
        SmtpConnector connector = connector();
        connector.dispatch(send(INPUT, "key-7"));

        var result = connector.lookup(Requests.lookup("smtp", "send_email", "key-7", null));

        assertThat(result.verdict()).isEqualTo(Verdict.EFFECT_CONFIRMED);
        assertThat(result.providerReceiptId()).isEqualTo(MessageIds.forKey("key-7", "gate.example.net"));
    }

    @Test
    void shouldReportNoEffectOnlyWhenFolderIsAuthoritative() {
        connector().dispatch(send(INPUT, "key-other"));

        assertThat(connector().lookup(Requests.lookup("smtp", "send_email", "key-missing", null)).verdict())
                .isEqualTo(Verdict.STILL_UNKNOWN);
        assertThat(connector(Map.of("imap-authoritative", "true"))
                .lookup(Requests.lookup("smtp", "send_email", "key-missing", null)).verdict())
                .isEqualTo(Verdict.NO_EFFECT);
    }

    @Test
    void shouldStayUnknownWhenImapIsUnreachableOrMissing() {
        String closed = String.valueOf(LocalHttpServer.closedPort());
        assertThat(connector(Map.of("imap-port", closed, "imap-authoritative", "true"))
                .lookup(Requests.lookup("smtp", "send_email", "k", null)).verdict()).isEqualTo(Verdict.STILL_UNKNOWN);
        Map<String, String> noImap = baseSettings();
        noImap.remove("imap-host");
        SmtpConnector connector = new SmtpConnector(SmtpSettings.from(TestContext.of(noImap,
                Map.of("env:SMTP_PASSWORD", SMTP_PASSWORD, "file:/run/secrets/imap", IMAP_PASSWORD))),
                Clock.systemUTC());
        assertThat(connector.lookup(Requests.lookup("smtp", "send_email", "k", null)).verdict())
                .isEqualTo(Verdict.STILL_UNKNOWN);
        assertThat(connector(Map.of("imap-folder", "NoSuchFolder", "imap-authoritative", "true"))
                .lookup(Requests.lookup("smtp", "send_email", "k", null)).verdict()).isEqualTo(Verdict.STILL_UNKNOWN);
    }

    @Test
    void shouldBeRetryableNotDispatchedWhenSmtpRefusesConnection() {
        DispatchResult result = connector(Map.of("port", String.valueOf(LocalHttpServer.closedPort())))
                .dispatch(send(INPUT, "k"));

        assertThat(result.status()).isEqualTo(Status.RETRYABLE);
        assertThat(result.dispatched()).isFalse();
        assertThat(result.errorCode()).isEqualTo(ErrorCodes.CONNECTION_REFUSED);
    }

    @Test
    void shouldFailNotDispatchedWhenAuthenticationIsRejected() {
        Map<String, String> s = baseSettings();
        TestContext context = TestContext.of(s, Map.of("env:SMTP_PASSWORD", "wrong", "file:/run/secrets/imap", "x"));
        DispatchResult result = new SmtpConnector(SmtpSettings.from(context), Clock.systemUTC())
                .dispatch(send(INPUT, "k"));

        assertThat(result.status()).isEqualTo(Status.FAILED);
        assertThat(result.dispatched()).isFalse();
        assertThat(mail.getReceivedMessages()).isEmpty();
    }

    @Test
    void shouldMapScriptedRepliesByWhetherContentWasSent() {
        try (ScriptedSmtpServer server = new ScriptedSmtpServer()) {
            Map<String, String> settings = new HashMap<>(Map.of("port", String.valueOf(server.port()),
                    "timeout-ms", "2000"));
            settings.put("username", "");
            SmtpConnector connector = connector(settings);

            server.rcptReply = "451 4.3.0 try later";
            assertThat(connector.dispatch(send(INPUT, "k")))
                    .extracting(DispatchResult::status, DispatchResult::dispatched, DispatchResult::httpStatus)
                    .containsExactly(Status.RETRYABLE, false, 451);

            server.rcptReply = "550 5.1.1 no such user";
            assertThat(connector.dispatch(send(INPUT, "k")))
                    .extracting(DispatchResult::status, DispatchResult::dispatched, DispatchResult::errorCode)
                    .containsExactly(Status.FAILED, false, ErrorCodes.PROVIDER_REJECTED);

            server.rcptReply = "250 ok";
            server.mailReply = "421 4.7.0 too busy";
            assertThat(connector.dispatch(send(INPUT, "k")))
                    .extracting(DispatchResult::status, DispatchResult::dispatched)
                    .containsExactly(Status.RETRYABLE, false);

            server.mailReply = "250 ok";
            server.dataReply = "554 5.5.1 no valid recipients";
            assertThat(connector.dispatch(send(INPUT, "k")))
                    .extracting(DispatchResult::status, DispatchResult::dispatched)
                    .containsExactly(Status.FAILED, false);

            server.dataReply = "354 go ahead";
            server.endOfDataReply = "554 5.7.1 rejected as spam";
            assertThat(connector.dispatch(send(INPUT, "k")))
                    .extracting(DispatchResult::status, DispatchResult::dispatched, DispatchResult::httpStatus)
                    .containsExactly(Status.FAILED, true, 554);

            server.endOfDataReply = "451 4.3.0 local error";
            assertThat(connector.dispatch(send(INPUT, "k")))
                    .extracting(DispatchResult::status, DispatchResult::dispatched)
                    .containsExactly(Status.UNKNOWN, true);

            server.endOfDataReply = null;
            DispatchResult timedOut = connector.dispatch(send(INPUT, "k"));
            assertThat(timedOut)
                    .extracting(DispatchResult::status, DispatchResult::dispatched)
                    .containsExactly(Status.UNKNOWN, true);

            assertThat(server.messagesReceived.get()).isEqualTo(3);
        }
    }

    @Test
    void shouldSucceedOnlyOnThe250ThatAcceptsTheMessage() {
        try (ScriptedSmtpServer server = new ScriptedSmtpServer()) {
            Map<String, String> settings = new HashMap<>(Map.of("port", String.valueOf(server.port()),
                    "timeout-ms", "2000"));
            settings.put("username", "");
            SmtpConnector connector = connector(settings);

            server.endOfDataReply = "250 2.0.0 queued as 4A1";
            DispatchResult accepted = connector.dispatch(send(INPUT, "k"));
            assertThat(accepted.status()).isEqualTo(Status.SUCCEEDED);
            assertThat(accepted.providerReceiptId()).isEqualTo(MessageIds.forKey("k", "gate.example.net"));

            server.endOfDataReply = "252 2.0.0 cannot verify, will try";
            DispatchResult odd = connector.dispatch(send(INPUT, "k"));
            assertThat(odd.status()).isEqualTo(Status.UNKNOWN);
            assertThat(odd.dispatched()).isTrue();
            assertThat(odd.providerReceiptId()).isNull();
        }
    }

    @Test
    void shouldKeepOnlyAWellFormedMessageIdAsReceipt() {
        assertThat(SmtpConnector.accepted(250, "<0123456789abcdef0123456789abcdef@example.com>").providerReceiptId())
                .isEqualTo("<0123456789abcdef0123456789abcdef@example.com>");
        assertThat(SmtpConnector.accepted(250, "<not-ours@example.com>").providerReceiptId()).isNull();
        assertThat(SmtpConnector.accepted(251, "<0123456789abcdef0123456789abcdef@example.com>"))
                .extracting(DispatchResult::status, DispatchResult::errorCode)
                .containsExactly(Status.UNKNOWN, ErrorCodes.UNEXPECTED_RESPONSE);
    }

    @Test
    void shouldRefuseInvalidInputOrAttachmentsWithoutConnecting() {
        DispatchResult invalid = connector().dispatch(send("{\"to\":\"a@evil.com\",\"subject\":\"s\",\"body\":\"b\"}", "k"));
        DispatchRequest withAttachment = new DispatchRequest("T-1", "C-1", 1, "k", "acme", "smtp", "send_email",
                "send_email", INPUT, java.util.List.of(new io.actiongate.connector.spi.Attachment("o", "sha", 1, "text/plain")),
                Instant.parse("2030-01-01T00:00:00Z"));
        DispatchResult attached = connector().dispatch(withAttachment);

        assertThat(invalid.status()).isEqualTo(Status.FAILED);
        assertThat(invalid.dispatched()).isFalse();
        assertThat(attached.status()).isEqualTo(Status.FAILED);
        assertThat(mail.getReceivedMessages()).isEmpty();
    }

    @Test
    void shouldRequireAllowListAndFromAtStart() {
        Map<String, String> s = baseSettings();
        s.remove("allowed-domains");
        assertThatThrownBy(() -> SmtpSettings.from(TestContext.of(s, Map.of("env:SMTP_PASSWORD", "x",
                "file:/run/secrets/imap", "y")))).hasMessageContaining("allowed-domains");
        Map<String, String> t = baseSettings();
        t.remove("from");
        assertThatThrownBy(() -> SmtpSettings.from(TestContext.of(t, Map.of()))).hasMessageContaining("from");
    }

    @Test
    void shouldNeverPutPasswordsInResultsOrLogs() {
        try (LogCapture logs = new LogCapture()) {
            SmtpConnector connector = connector();
            DispatchResult sent = connector.dispatch(send(INPUT, "k1"));
            var found = connector.lookup(Requests.lookup("smtp", "send_email", "k1", null));
            DispatchResult refused = connector(Map.of("port", String.valueOf(LocalHttpServer.closedPort())))
                    .dispatch(send(INPUT, "k2"));

            String all = String.valueOf(sent) + found + refused + SmtpSettings.from(TestContext.of(baseSettings(),
                    Map.of("env:SMTP_PASSWORD", SMTP_PASSWORD, "file:/run/secrets/imap", IMAP_PASSWORD)));
            assertThat(all).doesNotContain(SMTP_PASSWORD).doesNotContain(IMAP_PASSWORD);
            assertThat(logs.lines()).isNotEmpty()
                    .noneMatch(l -> l.contains(SMTP_PASSWORD) || l.contains(IMAP_PASSWORD) || l.contains("alice@"));
        }
    }
}
