package io.actiongate.dev;

import java.net.URI;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;

import io.actiongate.sandbox.SandboxMcpServer;
import io.actiongate.sandbox.SandboxWebhookProvider;

/**
 * The providers {@code actiongate dev} talks to instead of the real world, all on 127.0.0.1 with free ports: a
 * webhook provider that records effects per idempotency key and can be told to fail, an MCP server whose write tool
 * does the same (in front of it, the MCP gateway), and a GreenMail SMTP + IMAP server that keeps every mail it is sent.
 */
public final class Sandboxes implements AutoCloseable {

    /** The mailbox the demo sends to; the only domain the dev smtp connector allows. */
    public static final String MAIL_RECIPIENT = "team@example.com";
    public static final String MAIL_DOMAIN = "example.com";
    static final String MAIL_SENDER = "actiongate@demo.local";
    static final String SMTP_USER = "actiongate";
    static final String IMAP_USER = "team";

    private final SandboxWebhookProvider webhook;
    private final SandboxMcpServer mcp;
    private final GreenMail mail;

    private Sandboxes(SandboxWebhookProvider webhook, SandboxMcpServer mcp, GreenMail mail) {
        this.webhook = webhook;
        this.mcp = mcp;
        this.mail = mail;
    }

    /** Starts both; {@code smtpPassword} and {@code imapPassword} are the dev mailboxes' passwords. */
    public static Sandboxes start(String smtpPassword, String imapPassword) {
        SandboxWebhookProvider webhook = SandboxWebhookProvider.start();
        SandboxMcpServer mcp = null;
        GreenMail mail = null;
        try {
            mcp = SandboxMcpServer.start();
            mail = new GreenMail(new ServerSetup[] {
                new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP).dynamicPort(),
                new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_IMAP).dynamicPort()});
            mail.start();
            mail.setUser(MAIL_SENDER, SMTP_USER, smtpPassword);
            mail.setUser(MAIL_RECIPIENT, IMAP_USER, imapPassword);
            return new Sandboxes(webhook, mcp, mail);
        } catch (RuntimeException e) {
            webhook.close();
            if (mcp != null) {
                mcp.close();
            }
            if (mail != null) {
                mail.stop();
            }
            throw e;
        }
    }

    public SandboxWebhookProvider webhook() {
        return webhook;
    }

    /** The sandbox MCP server ({@code notes_lookup}, {@code notes_post}, {@code notes_status}). */
    public SandboxMcpServer mcp() {
        return mcp;
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
            mcp.close();
        } finally {
            mail.stop();
        }
    }
}
