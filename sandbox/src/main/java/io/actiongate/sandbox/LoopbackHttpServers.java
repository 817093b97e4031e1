package io.actiongate.sandbox;

import java.io.IOException;
import java.net.InetSocketAddress;

import com.sun.net.httpserver.HttpServer;

/**
 * The JDK's {@link HttpServer} for the sandbox's stand-in providers, with {@code TCP_NODELAY} on its connections.
 *
 * <p>The JDK's server writes a response's headers and its body in two writes. Without {@code TCP_NODELAY}, Nagle's
 * algorithm holds the body back until the client has acknowledged the headers, and a client on a keep-alive
 * connection delays that acknowledgement (40 ms on Linux): every provider call of {@code actiongate dev} took about
 * 40 ms beyond the provider's own time, more than everything else an action waits for. The JDK reads the switch once,
 * from the system property {@value #NODELAY}, when its first server starts, so it is set here, before any sandbox
 * server is created, unless the operator set it.
 */
public final class LoopbackHttpServers {

    /** The JDK server's switch for {@code TCP_NODELAY}, read once per JVM. */
    public static final String NODELAY = "sun.net.httpserver.nodelay";

    private LoopbackHttpServers() {
    }

    /**
     * Whether this JVM's sandbox servers send without Nagle's delay: {@code true} unless the operator set
     * {@value #NODELAY} otherwise (to see what it costs).
     */
    public static String nodelay() {
        return System.getProperty(NODELAY, "true");
    }

    static HttpServer create(InetSocketAddress address, int backlog) throws IOException {
        if (System.getProperty(NODELAY) == null) {
            System.setProperty(NODELAY, "true");
        }
        return HttpServer.create(address, backlog);
    }
}
