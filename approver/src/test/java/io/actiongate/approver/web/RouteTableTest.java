package io.actiongate.approver.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;

import org.junit.jupiter.api.Test;

class RouteTableTest {

    private static final RouteTable.Handler NONE = (ex, session, path) -> { };

    private final RouteTable table = RouteTable.builder()
            .exact(RouteTable.Method.GET, "/queue", NONE)
            .exact(RouteTable.Method.POST, "/logout", NONE)
            .prefix(RouteTable.Method.ANY, "/review/", NONE)
            .prefix(RouteTable.Method.GET, "/static/", NONE)
            .build();

    private String found(String method, String path) {
        Optional<RouteTable.Route> route = table.find(method, path);
        return route.map(r -> r.method() + " " + r.path()).orElse("none");
    }

    @Test
    void shouldMatchExactPathsByMethodWithHeadAsGet() {
        assertEquals("GET /queue", found("GET", "/queue"));
        assertEquals("GET /queue", found("HEAD", "/queue"));
        assertEquals("none", found("POST", "/queue"));
        assertEquals("none", found("GET", "/queue/"));
        assertEquals("POST /logout", found("POST", "/logout"));
        assertEquals("none", found("GET", "/logout"));
    }

    @Test
    void shouldMatchPrefixesForTheirMethods() {
        assertEquals("ANY /review/", found("PUT", "/review/t:c"));
        assertEquals("ANY /review/", found("POST", "/review/"));
        assertEquals("none", found("GET", "/review"));
        assertEquals("GET /static/", found("GET", "/static/app.js"));
        assertEquals("none", found("POST", "/static/app.js"));
    }

    @Test
    void shouldRefuseAPrefixThatIsNotAFolder() {
        assertThrows(IllegalArgumentException.class, () -> RouteTable.builder().prefix(RouteTable.Method.GET,
                "/review", NONE));
    }

    @Test
    void shouldTakeTheFirstRowThatMatches() {
        RouteTable first = RouteTable.builder().prefix(RouteTable.Method.ANY, "/a/", NONE)
                .exact(RouteTable.Method.GET, "/a/b", NONE).build();
        assertTrue(first.find("GET", "/a/b").orElseThrow().prefix());
    }
}
