package io.actiongate.connector.smtp;

import io.actiongate.secrets.Redaction;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.ErrorCodes;
import jakarta.mail.AuthenticationFailedException;
import jakarta.mail.MessagingException;
import org.eclipse.angus.mail.smtp.SMTPAddressFailedException;
import org.eclipse.angus.mail.smtp.SMTPSendFailedException;
import org.eclipse.angus.mail.smtp.SMTPSenderFailedException;

import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Collection;

/**
 * SMTP outcomes. The line that matters is the end of DATA: until the server has answered {@code 354} and we
 * have started writing the message, nothing can be delivered, so any failure is provably without effect.
 * <pre>
 * connect/greeting/EHLO/STARTTLS failure    RETRYABLE, dispatched=false (refused: CONNECTION_REFUSED)
 * AUTH rejected                             FAILED, dispatched=false (PROVIDER_REJECTED: fix the credentials)
 * 4xx to MAIL, RCPT or DATA                 RETRYABLE, dispatched=false (PROVIDER_UNAVAILABLE)
 * 5xx to MAIL, RCPT or DATA                 FAILED, dispatched=false (PROVIDER_REJECTED)
 * I/O failure before 354                    RETRYABLE, dispatched=false
 * 250 after the final dot                   SUCCEEDED, receipt = Message-ID
 * 5xx after the final dot                   FAILED (PROVIDER_REJECTED): the server explicitly refused
 *                                           responsibility for the message (RFC 5321 section 4.2.5)
 * 4xx after the final dot                   UNKNOWN: not accepted now, but we never resend content on our own
 * I/O failure or timeout after 354          UNKNOWN: the message may have been accepted
 * </pre>
 */
final class SmtpOutcomes {

    private final Collection<String> secrets;

    SmtpOutcomes(Collection<String> secrets) {
        this.secrets = secrets;
    }

    DispatchResult connectFailed(MessagingException e) {
        if (e instanceof AuthenticationFailedException) {
            return DispatchResult.refusedBeforeSending(ErrorCodes.PROVIDER_REJECTED, "SMTP authentication rejected");
        }
        Throwable root = rootCause(e);
        if (root instanceof ConnectException || root instanceof UnknownHostException) {
            return DispatchResult.notSent(ErrorCodes.CONNECTION_REFUSED, "SMTP connection refused");
        }
        if (root instanceof SocketTimeoutException) {
            return DispatchResult.notSent(ErrorCodes.CONNECT_TIMEOUT, "SMTP connect or greeting timed out");
        }
        return DispatchResult.notSent(ErrorCodes.PROVIDER_UNAVAILABLE,
                "SMTP session could not be opened: " + safe(e.getMessage()));
    }

    /**
     * @param contentStarted whether DATA had been answered with 354, so the message content was being (or had
     *                       been) written when the failure happened
     */
    DispatchResult sendFailed(MessagingException e, boolean contentStarted) {
        Reply reply = reply(e);
        if (reply != null) {
            boolean afterContent = ".".equals(reply.command()) || reply.command() == null && contentStarted;
            String detail = "SMTP server answered " + reply.code() + " to " + verb(reply.command());
            if (afterContent) {
                if (reply.code() >= 500) {
                    return DispatchResult.failed(reply.code(), ErrorCodes.PROVIDER_REJECTED, detail);
                }
                return DispatchResult.unknown(reply.code(), ErrorCodes.PROVIDER_UNAVAILABLE,
                        detail + " after the message was sent; not resent automatically");
            }
            if (reply.code() >= 400 && reply.code() < 500) {
                return new DispatchResult(DispatchResult.Status.RETRYABLE, false, reply.code(), null,
                        ErrorCodes.PROVIDER_UNAVAILABLE, detail + " before the message was sent", null);
            }
            return new DispatchResult(DispatchResult.Status.FAILED, false, reply.code(), null,
                    ErrorCodes.PROVIDER_REJECTED, detail + " before the message was sent", null);
        }
        if (contentStarted) {
            return DispatchResult.unknown(null, rootCause(e) instanceof SocketTimeoutException
                    ? ErrorCodes.RESPONSE_TIMEOUT : ErrorCodes.CONNECTION_LOST,
                    "SMTP session failed after the message content was sent");
        }
        return DispatchResult.notSent(ErrorCodes.PROVIDER_UNAVAILABLE,
                "SMTP session failed before the message content was sent");
    }

    record Reply(String command, int code) {
    }

    /** The first SMTP reply carried by {@code e} or its nested exceptions. */
    static Reply reply(MessagingException e) {
        Exception current = e;
        for (int depth = 0; current != null && depth < 10; depth++) {
            if (current instanceof SMTPSendFailedException f && f.getReturnCode() > 0) {
                return new Reply(f.getCommand(), f.getReturnCode());
            }
            if (current instanceof SMTPAddressFailedException f) {
                return new Reply(f.getCommand(), f.getReturnCode());
            }
            if (current instanceof SMTPSenderFailedException f) {
                return new Reply(f.getCommand(), f.getReturnCode());
            }
            current = current instanceof MessagingException m ? m.getNextException() : null;
        }
        return null;
    }

    private static String verb(String command) {
        if (command == null) {
            return "the message";
        }
        if (command.equals(".")) {
            return "end of data";
        }
        int space = command.indexOf(':');
        String verb = space > 0 ? command.substring(0, space) : command;
        return verb.length() > 12 ? verb.substring(0, 12) : verb;
    }

    private String safe(String message) {
        return Redaction.snippet(message, 80, secrets);
    }

    private static Throwable rootCause(Throwable t) {
        Throwable current = t;
        for (int depth = 0; depth < 10; depth++) {
            Throwable next = current instanceof MessagingException m && m.getNextException() != null
                    ? m.getNextException() : current.getCause();
            if (next == null || next == current) {
                return current;
            }
            current = next;
        }
        return current;
    }
}
