package io.actiongate.approver.web;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Which handler serves a request: one row per route, a method and a path (exact, or a prefix ending in {@code /}),
 * first match wins. {@link ApprovalApp} keeps two tables, the pages served before any session check and those
 * served behind it, so what each path needs is read from one table rather than from a chain of conditions.
 */
final class RouteTable {

    /** Which methods a row answers. {@code GET} also answers {@code HEAD}. */
    enum Method {
        GET, POST, ANY;

        boolean accepts(String method) {
            return switch (this) {
                case GET -> method.equals("GET") || method.equals("HEAD");
                case POST -> method.equals("POST");
                case ANY -> true;
            };
        }
    }

    /** Serves one request; {@code path} is the request's path, {@code session} null when there is none. */
    @FunctionalInterface
    interface Handler {
        void serve(Exchange ex, Session session, String path) throws IOException;
    }

    /** One row: {@code path} is matched exactly, or as a prefix when {@code prefix}. */
    record Route(Method method, String path, boolean prefix, Handler handler) {

        boolean matches(String requestMethod, String requestPath) {
            return method.accepts(requestMethod) && (prefix ? requestPath.startsWith(path) : requestPath.equals(path));
        }
    }

    private final List<Route> routes;

    private RouteTable(List<Route> routes) {
        this.routes = List.copyOf(routes);
    }

    static Builder builder() {
        return new Builder();
    }

    /** The first row that serves {@code method} and {@code path}, if any. */
    Optional<Route> find(String method, String path) {
        for (Route route : routes) {
            if (route.matches(method, path)) {
                return Optional.of(route);
            }
        }
        return Optional.empty();
    }

    List<Route> routes() {
        return routes;
    }

    static final class Builder {

        private final List<Route> routes = new ArrayList<>();

        Builder exact(Method method, String path, Handler handler) {
            routes.add(new Route(method, path, false, handler));
            return this;
        }

        /** A row for every path under {@code prefix}, which ends in {@code /}. */
        Builder prefix(Method method, String prefix, Handler handler) {
            if (!prefix.endsWith("/")) {
                throw new IllegalArgumentException("a prefix route ends in /: " + prefix);
            }
            routes.add(new Route(method, prefix, true, handler));
            return this;
        }

        RouteTable build() {
            return new RouteTable(routes);
        }
    }
}
