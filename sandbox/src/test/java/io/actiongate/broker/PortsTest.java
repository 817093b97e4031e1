package io.actiongate.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

import org.junit.jupiter.api.Test;

/** Only a live listener makes a port "in use"; TIME-WAIT leftovers of a previous run do not. */
class PortsTest {

    @Test
    void shouldRefuseAPortWithALiveListener() throws IOException {
        try (ServerSocket listener = listen(0)) {
            int port = listener.getLocalPort();
            assertThatThrownBy(() -> Ports.requireFree(port)).isInstanceOf(PortInUseException.class)
                    .hasMessageContaining(Integer.toString(port));
        }
    }

    @Test
    void shouldAcceptAPortHeldOnlyByATimeWaitConnection() throws IOException {
        int port;
        try (ServerSocket listener = listen(0)) {
            port = listener.getLocalPort();
            try (Socket client = new Socket(InetAddress.getByName(Ports.LOOPBACK), port);
                 Socket accepted = listener.accept()) {
                // the listening side closes first (its FIN goes out now): its end, local port = the listener's
                // port, goes to TIME-WAIT once the client closes too
                accepted.shutdownOutput();
                InputStream in = client.getInputStream();
                assertThat(in.read()).as("client sees the server's FIN").isEqualTo(-1);
            }
        }
        // the precondition that made `dev` refuse to restart: a bind without SO_REUSEADDR fails on TIME-WAIT
        assertThatThrownBy(() -> {
            try (ServerSocket strict = new ServerSocket()) {
                strict.setReuseAddress(false);
                strict.bind(new InetSocketAddress(InetAddress.getByName(Ports.LOOPBACK), port));
            }
        }).as("a TIME-WAIT socket holds port %d", port).isInstanceOf(IOException.class);

        assertThatCode(() -> Ports.requireFree(port)).doesNotThrowAnyException();
    }

    private static ServerSocket listen(int port) throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getByName(Ports.LOOPBACK), port));
        return s;
    }
}
