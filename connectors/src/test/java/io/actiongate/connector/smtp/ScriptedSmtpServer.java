package io.actiongate.connector.smtp;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A tiny SMTP server on loopback whose replies to MAIL, RCPT, DATA and the final dot are scripted, so tests can
 * produce every failure row that a real server (GreenMail) will not. A {@code null} end-of-data reply means
 * "swallow the message and never answer", i.e. a timeout after the content was sent.
 */
final class ScriptedSmtpServer implements AutoCloseable {

    volatile String mailReply = "250 ok";
    volatile String rcptReply = "250 ok";
    volatile String dataReply = "354 go ahead";
    volatile String endOfDataReply = "250 queued";
    final AtomicInteger messagesReceived = new AtomicInteger();

    private final ServerSocket socket;
    private final Thread acceptor;

    ScriptedSmtpServer() {
        try {
            socket = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        acceptor = new Thread(this::acceptLoop, "scripted-smtp");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return socket.getLocalPort();
    }

    private void acceptLoop() {
        while (!socket.isClosed()) {
            try (Socket client = socket.accept()) {
                converse(client);
            } catch (IOException e) {
                // client went away or server closed
            }
        }
    }

    private void converse(Socket client) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.US_ASCII));
        OutputStream out = client.getOutputStream();
        reply(out, "220 scripted ESMTP");
        String line;
        while ((line = in.readLine()) != null) {
            String upper = line.toUpperCase();
            if (upper.startsWith("EHLO") || upper.startsWith("HELO")) {
                reply(out, "250 scripted");
            } else if (upper.startsWith("MAIL")) {
                reply(out, mailReply);
            } else if (upper.startsWith("RCPT")) {
                reply(out, rcptReply);
            } else if (upper.startsWith("DATA")) {
                reply(out, dataReply);
                if (dataReply.startsWith("354")) {
                    while ((line = in.readLine()) != null && !line.equals(".")) {
                        // message content
                    }
                    messagesReceived.incrementAndGet();
                    if (endOfDataReply == null) {
                        sleepQuietly(5_000);
                        return;
                    }
                    reply(out, endOfDataReply);
                }
            } else if (upper.startsWith("QUIT")) {
                reply(out, "221 bye");
                return;
            } else {
                reply(out, "250 ok");
            }
        }
    }

    private static void reply(OutputStream out, String line) throws IOException {
        out.write((line + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // already closed
        }
    }
}
