package io.actiongate.connector.smtp;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import io.actiongate.connector.spi.ConnectorFactory;
import io.actiongate.connector.testing.ConnectorContract;
import org.junit.jupiter.api.AfterEach;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The connector contract for smtp: GreenMail (SMTP + an authoritative IMAP folder) when it succeeds, the scripted
 * SMTP server when it swallows the message (hangs) or answers 451 after the content (proves nothing).
 */
class SmtpContractTest extends ConnectorContract {

    private final GreenMail mail = new GreenMail(new ServerSetup[] {
            new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP).dynamicPort(),
            new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_IMAP).dynamicPort()});
    private final ScriptedSmtpServer scripted = new ScriptedSmtpServer();

    SmtpContractTest() {
        mail.start();
        mail.setUser("gate@actiongate.test", "gate", "contract-smtp-pass");
        mail.setUser("team@example.com", "team", "contract-imap-pass");
    }

    @AfterEach
    void stop() {
        mail.stop();
        scripted.close();
    }

    @Override
    protected ConnectorFactory factory() {
        return new SmtpConnectorFactory();
    }

    @Override
    protected Map<String, String> settings(Scenario scenario) {
        Map<String, String> s = new HashMap<>();
        s.put("host", "127.0.0.1");
        s.put("from", "gate@actiongate.test");
        s.put("allowed-domains", "example.com");
        s.put("timeout-ms", "700");
        s.put("imap-host", "127.0.0.1");
        s.put("imap-port", String.valueOf(mail.getImap().getPort()));
        s.put("imap-username", "team");
        s.put("imap-password", "file:/run/secrets/imap");
        if (scenario == Scenario.SUCCEEDS) {
            s.put("port", String.valueOf(mail.getSmtp().getPort()));
            s.put("username", "gate");
            s.put("password", "env:SMTP_PASSWORD");
            s.put("imap-authoritative", "true");
        } else {
            // the scripted server keeps what it receives to itself: the folder cannot be authoritative for it
            scripted.endOfDataReply = scenario == Scenario.HANGS ? null : "451 4.3.0 local error after queueing";
            s.put("port", String.valueOf(scripted.port()));
        }
        return s;
    }

    @Override
    protected Map<String, String> secrets() {
        return Map.of("env:SMTP_PASSWORD", "contract-smtp-pass", "file:/run/secrets/imap", "contract-imap-pass");
    }

    @Override
    protected Optional<Example> read() {
        return Optional.empty();
    }

    @Override
    protected Example effect() {
        return new Example("send_email",
                "{\"to\":\"team@example.com\",\"subject\":\"Deploy finished\",\"body\":\"Build 42 is live.\"}");
    }

    @Override
    protected List<Example> refused() {
        return List.of();
    }

    @Override
    protected Example unsupported() {
        return new Example("send_sms", "{\"to\":\"+100\",\"body\":\"hi\"}");
    }

    @Override
    protected List<Example> invalid() {
        return List.of(
                new Example("send_email", "{\"to\":\"eve@evil.test\",\"subject\":\"s\",\"body\":\"b\"}"),
                new Example("send_email", "{\"to\":\"team@example.com\",\"cc\":\"x@example.com\",\"subject\":\"s\","
                        + "\"body\":\"b\"}"),
                new Example("send_email", "{\"to\":\"team@example.com\",\"subject\":\"" + "s".repeat(81)
                        + "\",\"body\":\"b\"}"));
    }

    @Override
    protected long effectsApplied() {
        return mail.getReceivedMessages().length + scripted.messagesReceived.get();
    }

    @Override
    protected boolean lookupConfirmsEffects() {
        return true;
    }
}
