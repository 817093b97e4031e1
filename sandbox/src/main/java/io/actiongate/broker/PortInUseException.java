package io.actiongate.broker;

/** A port the embedded broker needs is already bound by another process. */
public final class PortInUseException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final String host;
    private final int port;

    public PortInUseException(String host, int port) {
        super("port " + port + " on " + host + " is already in use");
        this.host = host;
        this.port = port;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }
}
