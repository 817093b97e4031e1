package io.actiongate.baseline.postgres;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a machine without PostgreSQL is told, without starting one. */
class PostgresServerTest {

    @TempDir
    Path dir;

    @Test
    void shouldNameTheFixWhenPostgresBinariesAreMissing() {
        String previous = System.setProperty(PostgresServer.BIN_DIR_PROPERTY, dir.toString());
        try {
            assertThatThrownBy(PostgresServer::findBinaries).isInstanceOf(PostgresServer.UnavailableException.class)
                    .hasMessageContaining("PostgreSQL not found").hasMessageContaining("initdb");
        } finally {
            if (previous == null) {
                System.clearProperty(PostgresServer.BIN_DIR_PROPERTY);
            } else {
                System.setProperty(PostgresServer.BIN_DIR_PROPERTY, previous);
            }
        }
    }
}
