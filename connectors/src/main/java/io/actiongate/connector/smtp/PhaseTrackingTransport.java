package io.actiongate.connector.smtp;

import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.URLName;
import org.eclipse.angus.mail.smtp.SMTPTransport;

import java.io.OutputStream;

/**
 * An SMTP transport that remembers whether the server said {@code 354} to DATA, i.e. whether the message
 * content was (or may have been) written. The transport's last reply code is not reliable for this: an I/O
 * failure while waiting for the final reply leaves it changed, and "maybe sent" must never read as "not sent".
 */
final class PhaseTrackingTransport extends SMTPTransport {

    private volatile boolean contentStarted;

    PhaseTrackingTransport(Session session, String host, int port) {
        super(session, new URLName("smtp", host, port, null, null, null));
    }

    @Override
    protected OutputStream data() throws MessagingException {
        OutputStream out = super.data();
        contentStarted = true;
        return out;
    }

    /** True once DATA was answered with 354: from then on, the message may have been accepted. */
    boolean contentStarted() {
        return contentStarted;
    }
}
