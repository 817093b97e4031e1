package io.actiongate.broker;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** Loopback port helpers: fail fast on a taken port, or pick a free one. */
final class Ports {

    static final String LOOPBACK = "127.0.0.1";

    private Ports() {
    }

    /** Throws {@link PortInUseException} when {@code port} cannot be bound on 127.0.0.1 right now. */
    static void requireFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getByName(LOOPBACK), port));
        } catch (IOException e) {
            throw new PortInUseException(LOOPBACK, port);
        }
    }

    /** A port that was free a moment ago (the OS picks it). */
    static int pickFree() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getByName(LOOPBACK), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("cannot find a free port on " + LOOPBACK + ": " + e.getMessage(), e);
        }
    }
}
