package io.actiongate.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.junit.jupiter.api.Test;

class HttpServerConfigTest {

    @Test
    void shouldDefaultToAllInterfacesOnPort8080() {
        HttpServerConfig config = HttpServerConfig.from(Map.of());

        assertThat(config.bindAddress()).isEqualTo("0.0.0.0");
        assertThat(config.port()).isEqualTo(8080);
    }

    @Test
    void shouldReadPortAndBindAddress() {
        HttpServerConfig config = HttpServerConfig.from(Map.of("http.port", "9091", "http.bind.address", "127.0.0.1"));

        assertThat(config).isEqualTo(new HttpServerConfig("127.0.0.1", 9091));
        assertThat(HttpServerConfig.from(Map.of("http.port", 7000)).port()).isEqualTo(7000);
    }

    @Test
    void shouldRejectInvalidPorts() {
        assertThatThrownBy(() -> HttpServerConfig.from(Map.of("http.port", "http")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("http.port");
        assertThatThrownBy(() -> HttpServerConfig.from(Map.of("http.port", "70000")))
                .hasMessageContaining("http.port").hasMessageContaining("65535");
    }

    @Test
    void shouldNameTheKeyOfEveryBadValue() {
        for (Map.Entry<String, String> bad : Map.of("http.port", "abc", "http.auth.required", "yes",
                "http.auth.metrics", "1").entrySet()) {
            assertThatThrownBy(() -> HttpServerConfig.from(Map.of(bad.getKey(), bad.getValue())))
                    .as(bad.getKey() + "=" + bad.getValue())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(bad.getKey());
        }
    }

    @Test
    void shouldTakeTheDefaultForABlankValue() {
        HttpServerConfig config = HttpServerConfig.from(Map.of("http.port", " ", "http.auth.required", ""));

        assertThat(config.port()).isEqualTo(HttpServerConfig.DEFAULT_PORT);
        assertThat(config.security()).isEqualTo(HttpServerConfig.from(Map.of()).security());
    }
}
