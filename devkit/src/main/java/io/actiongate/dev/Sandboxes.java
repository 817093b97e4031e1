package io.actiongate.dev;

import java.net.URI;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;

import jakarta.mail.Address;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.MimeMessage;

import io.actiongate.sandbox.SandboxChatWebhook;
import io.actiongate.sandbox.SandboxMcpServer;
import io.actiongate.sandbox.SandboxWebhookProvider;

/**
 * The providers {@code actiongate dev} talks to instead of the real world, all on 127.0.0.1 with free ports: a
 * webhook provider that records effects per idempotency key and can be told to fail, an MCP server whose write tool
 * does the same (in front of it, the MCP gateway), a GreenMail SMTP + IMAP server that keeps every mail it is sent, and
 * a Slack-compatible chat webhook that logs every message the notifier posts.
 */
public final class Sandboxes implements AutoCloseable {

    /** The mailbox the demo sends to; the only domain the dev smtp connector allows. */
    public static final String MAIL_RECIPIENT = "team@example.com";
    public static final String MAIL_DOMAIN = "example.com";
    static final String MAIL_SENDER = "actiongate@demo.local";
    static final String SMTP_USER = "actiongate";
    static final String IMAP_USER = "team";
    /** The reviewers' mailbox the demo's notification route names (the notifier's email). */
    public static final String REVIEWERS = "reviewers@example.com";
    static final String REVIEWERS_IMAP_USER = "reviewers";

    private final SandboxWebhookProvider webhook;
    private final SandboxMcpServer mcp;
    private final GreenMail mail;
    private final SandboxChatWebhook chat;

    private Sandboxes(SandboxWebhookProvider webhook, SandboxMcpServer mcp, GreenMail mail, SandboxChatWebhook chat) {
        this.webhook = webhook;
        this.mcp = mcp;
        this.mail = mail;
        this.chat = chat;
    }

    /** Starts both; {@code smtpPassword} and {@code imapPassword} are the dev mailboxes' passwords. */
    public static Sandboxes start(String smtpPassword, String imapPassword) {
        SandboxWebhookProvider webhook = SandboxWebhookProvider.start();
        SandboxMcpServer mcp = null;
        GreenMail mail = null;
        SandboxChatWebhook chat = null;
        try {
            mcp = SandboxMcpServer.start();
            mail = new GreenMail(new ServerSetup[] {
                new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP).dynamicPort(),
                new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_IMAP).dynamicPort()});
            mail.start();
            mail.setUser(MAIL_SENDER, SMTP_USER, smtpPassword);
            mail.setUser(MAIL_RECIPIENT, IMAP_USER, imapPassword);
            mail.setUser(REVIEWERS, REVIEWERS_IMAP_USER, imapPassword);
            chat = SandboxChatWebhook.start();
            return new Sandboxes(webhook, mcp, mail, chat);
        } catch (RuntimeException e) {
            webhook.close();
            if (mcp != null) {
                mcp.close();
            }
            if (chat != null) {
                chat.close();
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

    /** How many mails the sandbox mailbox ({@link #MAIL_RECIPIENT}, where the demo's emails go) has received. */
    public int mailsReceived() {
        return mailsTo(MAIL_RECIPIENT);
    }

    /** How many notification emails the reviewers' mailbox ({@link #REVIEWERS}) has received. */
    public int noticesReceived() {
        return mailsTo(REVIEWERS);
    }

    /** The chat webhook the notifier tells the demo's reviewers through. */
    public SandboxChatWebhook chat() {
        return chat;
    }

    private int mailsTo(String address) {
        int count = 0;
        for (MimeMessage m : mail.getReceivedMessages()) {
            try {
                Address[] to = m.getRecipients(Message.RecipientType.TO);
                if (to != null && java.util.Arrays.stream(to).anyMatch(a -> a.toString().equalsIgnoreCase(address))) {
                    count++;
                }
            } catch (MessagingException e) {
                // a message without readable recipients is nobody's
            }
        }
        return count;
    }

    @Override
    public void close() {
        try {
            webhook.close();
            mcp.close();
            chat.close();
        } finally {
            mail.stop();
        }
    }
}
