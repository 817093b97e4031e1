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

    /**
     * Throws {@link PortInUseException} when something listens on {@code port} on 127.0.0.1 right now. The probe
     * binds with {@code SO_REUSEADDR} on, as the broker's own listener does: connections of a previous run that
     * linger in TIME-WAIT (about a minute after Ctrl-C or a crash) do not hold the port, only a live listener does.
     */
    static void requireFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
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
