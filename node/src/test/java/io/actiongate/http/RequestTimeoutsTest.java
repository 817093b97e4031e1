package io.actiongate.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;

import org.junit.jupiter.api.Test;

class RequestTimeoutsTest {

    @Test
    void shouldBoundTheRequestReadTimeOfEveryJdkServerOnceTheHttpSurfaceIsLoaded() throws Exception {
        Class.forName(GateHttpServer.class.getName(), true, getClass().getClassLoader());
        assertThat(System.getProperty(RequestTimeouts.MAX_REQUEST_TIME)).isNotNull();
        assertThat(RequestTimeouts.missing(new Properties())).containsEntry(RequestTimeouts.MAX_REQUEST_TIME, "10")
                .containsEntry(RequestTimeouts.CLOCK_TICK, "1000");
    }

    @Test
    void shouldKeepTheOperatorsOwnValue() {
        Properties set = new Properties();
        set.setProperty(RequestTimeouts.MAX_REQUEST_TIME, "3");
        assertThat(RequestTimeouts.missing(set)).doesNotContainKey(RequestTimeouts.MAX_REQUEST_TIME);
    }
}
