package io.actiongate.approver.web;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;

/**
 * The JDK HTTP server for the approval pages, on a small bounded pool. It speaks plain HTTP: in production TLS ends
 * in front of it (ingress), and the public URL is https; cookies are {@code Secure} either way.
 */
public final class ApproverHttpServer implements AutoCloseable {

    private final HttpServer server;
    private final ThreadPoolExecutor pool;

    public ApproverHttpServer(String bindAddress, int port, com.sun.net.httpserver.HttpHandler app) {
        try {
            server = HttpServer.create(new InetSocketAddress(bindAddress, port), 0);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind the approval service on " + bindAddress + ":" + port, e);
        }
        AtomicInteger n = new AtomicInteger();
        pool = new ThreadPoolExecutor(4, 4, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(64), r -> {
            Thread t = new Thread(r, "approver-http-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        }, new ThreadPoolExecutor.CallerRunsPolicy());
        pool.allowCoreThreadTimeOut(true);
        server.setExecutor(pool);
        server.createContext("/", app);
    }

    public ApproverHttpServer start() {
        server.start();
        return this;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        pool.shutdownNow();
    }
}
