package io.actiongate.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class ShutdownTest {

    @Test
    void shouldCloseInReverseOrderAndGoOnPastAFailingClose() {
        List<String> closed = new ArrayList<>();
        Shutdown shutdown = new Shutdown("test");
        shutdown.push(() -> closed.add("first"));
        shutdown.push(() -> {
            closed.add("second");
            throw new IllegalStateException("broken");
        });
        AutoCloseable third = shutdown.push(() -> closed.add("third"));

        shutdown.close();
        shutdown.close();

        assertThat(third).isNotNull();
        assertThat(closed).containsExactly("third", "second", "first");
    }
}
