package io.actiongate.loadtest.parts;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.gate.GateConfig;

import io.actiongate.loadtest.harness.BenchContext;
import io.actiongate.loadtest.harness.BenchOptions;
import io.actiongate.loadtest.harness.NodeJvm;
import io.actiongate.loadtest.harness.Progress;
import io.actiongate.loadtest.report.BenchRow;
import io.actiongate.loadtest.report.Invariant;

/**
 * Part "memory" with a few thousand actions: the gate in its own JVM keeps every action WAITING_APPROVAL, none is
 * dispatched, and its heap, RSS and store size are read. Asserts completion and that figures exist, never sizes.
 */
@Tag("system")
class MemoryPartIT {

    private static final int ACTIONS = 2_000;

    @TempDir
    Path stateDir;

    @Test
    void shouldRetainEveryActionWaitingAndReadTheGatesMemory() throws Exception {
        BenchOptions.Builder b = new BenchOptions.Builder().partitions(2).stateDir(stateDir).progress(false)
                .only("memory");
        b.memoryActions = ACTIONS;
        ByteArrayOutputStream table = new ByteArrayOutputStream();
        try (BenchContext ctx = new BenchContext(b.build(), stateDir, new PrintStream(table, true,
                StandardCharsets.UTF_8), Progress.off())) {
            ctx.enter("memory");
            List<BenchRow> rows = new MemoryPart().run(ctx);

            assertThat(rows).singleElement().satisfies(row -> {
                assertThat(row.id()).isEqualTo("m");
                assertThat(row.completed()).as("actions WAITING_APPROVAL").isEqualTo(ACTIONS);
                assertThat(row.throughput()).isPositive();
                assertThat(Double.parseDouble(row.notes().get("heap_mib"))).isPositive();
                assertThat(Double.parseDouble(row.notes().get("rss_mib"))).isPositive();
                assertThat(Double.parseDouble(row.notes().get("store_mib"))).isPositive();
                assertThat(Double.parseDouble(row.notes().get("idle_rss_mib"))).isPositive();
                assertThat(row.notes()).containsEntry("xmx", MemoryPart.GATE_HEAP);
            });
            assertThat(ctx.invariants()).hasSize(3).allMatch(Invariant::held);
            assertThat(table.toString(StandardCharsets.UTF_8)).contains("retained WAITING_APPROVAL actions");
        }
    }

    @Test
    void shouldRunTheGateWithItsRocksDbMemoryBounded() throws Exception {
        long bound = 32L * 1024 * 1024;
        BenchOptions.Builder b = new BenchOptions.Builder().partitions(2).stateDir(stateDir).progress(false)
                .only("memory");
        b.memoryActions = 500;
        b.nodeSettings.put(GateConfig.ROCKSDB_MEMORY_BYTES_CONFIG, Long.toString(bound));
        try (BenchContext ctx = new BenchContext(b.build(), stateDir, new PrintStream(new ByteArrayOutputStream(),
                true, StandardCharsets.UTF_8), Progress.off())) {
            ctx.enter("memory");
            BenchRow row = new MemoryPart().run(ctx).get(0);

            assertThat(row.completed()).as("actions WAITING_APPROVAL").isEqualTo(500);
            assertThat(row.notes()).containsEntry(GateConfig.ROCKSDB_MEMORY_BYTES_CONFIG, Long.toString(bound));
            assertThat(ctx.invariants()).allMatch(Invariant::held);
        }
        // RocksDB's own record of the options (OPTIONS-*): BoundedRocksDbMemory's memtables (bound / 16, 2 of them)
        try (Stream<Path> files = Files.walk(stateDir)) {
            List<Path> options = files.filter(f -> f.getFileName().toString().startsWith("OPTIONS-")
                    && f.toString().contains("gate-actions")).toList();
            assertThat(options).isNotEmpty().allSatisfy(file -> assertThat(Files.readString(file))
                    .contains("write_buffer_size=" + bound / 16).contains("max_write_buffer_number=2"));
        }
    }

    @Test
    void shouldFailTheInvariantsWhenAnActionWasLostOrDispatched() {
        NodeJvm.Memory memory = new NodeJvm.Memory(100, 200, 300, 400);
        MemoryPart.Measured lost = new MemoryPart.Measured(10, 2, 9, 0, 0, 0, 1, 1, memory, memory, 1);
        MemoryPart.Measured dispatched = new MemoryPart.Measured(10, 2, 10, 1, 1, 1, 1, 1, memory, memory, 1);
        try (BenchContext ctx = new BenchContext(BenchOptions.defaults(), stateDir, System.out, Progress.off())) {
            MemoryPart.check(ctx, lost);
            MemoryPart.check(ctx, dispatched);
            assertThat(ctx.invariants()).filteredOn(i -> !i.held()).extracting(Invariant::name)
                    .containsExactly("row m: every action WAITING_APPROVAL (none lost)",
                            "row m: none dispatched (no other receipt, no reservation, no provider request)");
        }
    }
}
