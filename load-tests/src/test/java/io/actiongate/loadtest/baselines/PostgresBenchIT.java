package io.actiongate.loadtest.baselines;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.baseline.postgres.TestPostgres;
import io.actiongate.broker.EmbeddedKafkaBroker;

import io.actiongate.loadtest.Benchmark;
import io.actiongate.loadtest.harness.BenchOptions;

/**
 * Part "postgres" with a handful of actions against a real PostgreSQL and the embedded broker: the operating system's
 * (Debian's package) when installed, else Maven Central's binaries ({@link TestPostgres}, which prints which).
 * Asserts completion and the row's invariants, never speed.
 */
@Tag("system")
class PostgresBenchIT {

    private static final int ACTIONS = 20;

    @BeforeAll
    static void choosePostgres() {
        TestPostgres.use();
    }

    @TempDir
    Path stateDir;

    @Test
    void shouldClaimDispatchAndReceiptEveryActionOnceAndRefuseConflicts() throws Exception {
        Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(stateDir);
        PostgresBench.Result r;
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.builder().start()) {
            r = new PostgresBench(ACTIONS, 2, 8, 100, Duration.ofMillis(2)).run(broker.bootstrapServers(), stateDir);
        }

        assertThat(r.side().completed()).as("SUCCEEDED receipts").isEqualTo(ACTIONS);
        assertThat(r.side().p(50)).isPositive();
        assertThat(PostgresBench.check(r.outcome())).allSatisfy(c -> assertThat(c.held()).as(c.name() + ": "
                + c.detail()).isTrue());
        assertThat(r.outcome().claimRows()).isEqualTo(ACTIONS + r.warmup());
        assertThat(r.outcome().conflictsRefused()).isEqualTo(PostgresBench.REDELIVERIES);
        assertThat(r.outcome().redeliveryReceipts()).isEqualTo(PostgresBench.REDELIVERIES);
        assertThat(r.providerRequests()).isEqualTo(ACTIONS + r.warmup());
        // PostgreSQL's durable defaults, as the row claims
        assertThat(r.postgres()).containsEntry("fsync", "on").containsEntry("synchronous_commit", "on")
                .containsKeys("server_version", "wal_sync_method", "full_page_writes");
        assertThat(r.kafka()).containsEntry("acks", "all").containsEntry("replication.factor", "1")
                .containsKey("log.flush.interval.messages");
        assertNoPostgresLeftBehind();
        assertThat(Files.getPosixFilePermissions(stateDir)).as("state directory permissions restored")
                .isEqualTo(permissions);
    }

    @Test
    void shouldPrintRowPgWithDurabilityAndHoldEveryInvariantThroughTheBenchmark() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BenchOptions options = new BenchOptions.Builder().only("postgres").brokerActions(ACTIONS).partitions(2)
                .stateDir(stateDir).progress(false).pgWorkers(4).rowSeconds(1).build();

        boolean ok = Benchmark.run(options, new PrintStream(bytes, true, StandardCharsets.UTF_8));

        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(ok).as(out).isTrue();
        assertThat(out).contains("Part postgres:", "durability, PostgreSQL", "fsync=on", "durability, Kafka: acks=all",
                "5/5 conflicting inputs refused", "log.flush.interval.messages=1", "synchronous_commit=off",
                "invariants: all 16 held", "pg4: cpu-us/action", "postgres", "best pg row with fsync: pg4s");
        assertThat(out.lines().filter(l -> l.startsWith("pg4 ") || l.startsWith("pg4s ") || l.startsWith("fs ")))
                .hasSize(3);
        assertNoPostgresLeftBehind();
    }

    /** The server's directory is deleted (so it was stopped first: pg_ctl stop -w before the delete). */
    private void assertNoPostgresLeftBehind() throws Exception {
        try (Stream<Path> paths = Files.walk(stateDir)) {
            assertThat(paths.filter(p -> p.getFileName().toString().startsWith("postgres-"))).isEmpty();
        }
    }
}
