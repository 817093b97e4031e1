package io.actiongate.dev;

import java.net.URI;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;

import io.actiongate.sandbox.SandboxWebhookProvider;

/**
 * The providers {@code actiongate dev} talks to instead of the real world, all on 127.0.0.1 with free ports: a
 * webhook provider that records effects per idempotency key and can be told to fail, and a GreenMail SMTP + IMAP
 * server that keeps every mail it is sent.
 */
public final class Sandboxes implements AutoCloseable {

    /** The mailbox the demo sends to; the only domain the dev smtp connector allows. */
    public static final String MAIL_RECIPIENT = "team@example.com";
    public static final String MAIL_DOMAIN = "example.com";
    static final String MAIL_SENDER = "actiongate@demo.local";
    static final String SMTP_USER = "actiongate";
    static final String IMAP_USER = "team";

    private final SandboxWebhookProvider webhook;
    private final GreenMail mail;

    private Sandboxes(SandboxWebhookProvider webhook, GreenMail mail) {
        this.webhook = webhook;
        this.mail = mail;
    }

    /** Starts both; {@code smtpPassword} and {@code imapPassword} are the dev mailboxes' passwords. */
    public static Sandboxes start(String smtpPassword, String imapPassword) {
        SandboxWebhookProvider webhook = SandboxWebhookProvider.start();
        GreenMail mail = null;
        try {
            mail = new GreenMail(new ServerSetup[] {
                new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP).dynamicPort(),
                new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_IMAP).dynamicPort()});
            mail.start();
            mail.setUser(MAIL_SENDER, SMTP_USER, smtpPassword);
            mail.setUser(MAIL_RECIPIENT, IMAP_USER, imapPassword);
            return new Sandboxes(webhook, mail);
        } catch (RuntimeException e) {
            webhook.close();
            if (mail != null) {
                mail.stop();
            }
            throw e;
        }
    }

    public SandboxWebhookProvider webhook() {
        return webhook;
    }

    public URI webhookUri() {
        return webhook.baseUri();
    }

    public int smtpPort() {
        return mail.getSmtp().getPort();
    }

    public int imapPort() {
        return mail.getImap().getPort();
    }

    /** How many mails the sandbox mailbox has received. */
    public int mailsReceived() {
        return mail.getReceivedMessages().length;
    }

    @Override
    public void close() {
        try {
            webhook.close();
        } finally {
            mail.stop();
        }
    }
}
