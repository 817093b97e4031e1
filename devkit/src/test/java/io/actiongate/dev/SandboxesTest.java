package io.actiongate.dev;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

/** What connects to dev's sandboxes cannot make them busy once it is gone. */
class SandboxesTest {

    private static final Duration SETTLE = Duration.ofSeconds(10);

    /**
     * A client that speaks something else to the IMAP port and hangs up (an HTTP probe, a port scan, a mail client
     * killed mid-session) must end its session. GreenMail 2.1.5 kept the session's thread looping on the closed stream
     * at a whole core until dev stopped.
     */
    @Test
    void shouldEndTheImapSessionOfAClientThatHangsUpInsteadOfSpinning() throws Exception {
        try (Sandboxes sandboxes = Sandboxes.start("smtp-secret-test", "imap-secret-test")) {
            String session = ":" + sandboxes.imapPort() + "<-";
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), sandboxes.imapPort())) {
                BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), US_ASCII));
                assertThat(in.readLine()).startsWith("* OK");
                assertThat(sessionThreads(session)).hasSize(1);
                socket.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(US_ASCII));
                socket.getOutputStream().flush();
            }

            long deadline = System.nanoTime() + SETTLE.toNanos();
            while (!sessionThreads(session).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(sessionThreads(session)).as("IMAP session threads still running %s after the client left",
                    SETTLE).isEmpty();
        }
    }

    /** GreenMail names a session's thread {@code imap:<host>:<port><-/<client>:<port>}. */
    private static List<Thread> sessionThreads(String session) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("imap:") && t.getName().contains(session))
                .toList();
    }
}
