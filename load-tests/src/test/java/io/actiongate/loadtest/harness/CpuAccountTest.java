package io.actiongate.loadtest.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class CpuAccountTest {

    @Test
    void shouldCountBusyTicksOfProcStatWithoutIdleIowaitAndSteal() {
        String stat = "cpu  100 5 50 1000 40 3 2 7 0 0\ncpu0 50 2 25 500 20 1 1 3 0 0\nintr 1 2 3\n";
        CpuAccount.MachineTicks t = CpuAccount.MachineTicks.parse(stat);
        assertEquals(100 + 5 + 50 + 3 + 2, t.busy());
        assertEquals(160 + 1000 + 40 + 7, t.total());
    }

    @Test
    void shouldTellCoresBetweenTwoReadingsAndNothingComparableWhenAReadingFailedOrWentDown() {
        assertEquals(0.05, CpuAccount.coresBetween(1_000, 1_050, 10), 1e-9);
        assertEquals(0.0, CpuAccount.coresBetween(1_000, 1_000, 5), 1e-9);
        assertTrue(Double.isNaN(CpuAccount.coresBetween(-1, 1_050, 10)), "no reading before");
        assertTrue(Double.isNaN(CpuAccount.coresBetween(1_000, -1, 10)), "no reading after");
        assertTrue(Double.isNaN(CpuAccount.coresBetween(1_000, 900, 10)), "a thread ended with its ticks");
    }

    @Test
    void shouldReadUserAndSystemTicksOfAProcessWhoseNameHasSpacesAndParentheses() {
        String stat = "4242 (postgres: bench (x) idle) S 4200 4242 4242 0 -1 4194560 300 0 0 0 17 5 0 0 20 0 1 0 "
                + "12345 100000 200 18446744073709551615";
        assertEquals(22, CpuAccount.processTicks(stat));
        assertEquals(4200, CpuAccount.parentPid(stat));
    }

    @Test
    void shouldCountOnlyTheJitCompilerThreadsOfAProcess() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux /proc");
        long pid = ProcessHandle.current().pid();
        long before = CpuAccount.compilerTicks(pid);
        // a method hot enough for C1 and C2 keeps the compilers busy for a moment
        long sum = 0;
        for (int round = 0; round < 200 && CpuAccount.compilerTicks(pid) == before; round++) {
            for (int i = 0; i < 200_000; i++) {
                sum += Integer.toString(i + round).hashCode();
            }
        }
        assertTrue(before >= 0 && CpuAccount.compilerTicks(pid) > before, "compiler ticks " + before + " " + sum);
        assertTrue(CpuAccount.compilerTicks(pid) < CpuAccount.processTreeTicks(pid), "only the compilers' share");
        assertEquals(-1, CpuAccount.compilerTicks(Long.MAX_VALUE), "no such process");
    }

    @Test
    void shouldGroupThreadsByTheirNames() {
        assertEquals(CpuAccount.Group.STREAM, CpuAccount.group("bench-gate-1a2b-3c4d-StreamThread-1"));
        assertEquals(CpuAccount.Group.STREAM,
                CpuAccount.group("kafka-producer-network-thread | bench-gate-1a-StreamThread-1-producer"));
        assertEquals(CpuAccount.Group.EXECUTOR, CpuAccount.group("actiongate-executor-dispatch-3"));
        assertEquals(CpuAccount.Group.EXECUTOR,
                CpuAccount.group("kafka-producer-network-thread | bench-gate-1a-executor-producer"));
        assertEquals(CpuAccount.Group.EXECUTOR, CpuAccount.group("skeleton-executor-dispatch-1"));
        assertEquals(CpuAccount.Group.HTTP_CLIENT, CpuAccount.group("HttpClient-1-Worker-0"));
        assertEquals(CpuAccount.Group.PROVIDER, CpuAccount.group("sandbox-webhook"));
        assertEquals(CpuAccount.Group.BROKER, CpuAccount.group("data-plane-kafka-request-handler-0"));
        assertEquals(CpuAccount.Group.BROKER, CpuAccount.group("kafka-network-thread-1-ListenerName(PLAINTEXT)-PLAINTEXT-0"));
        assertEquals(CpuAccount.Group.LOAD, CpuAccount.group("kafka-producer-network-thread | bench-load-3"));
        assertEquals(CpuAccount.Group.LOAD, CpuAccount.group("bench-load-generator"));
        assertEquals(CpuAccount.Group.WATCHER, CpuAccount.group("bench-watch-x.receipts"));
        assertEquals(CpuAccount.Group.POSTGRES_CLIENT, CpuAccount.group("pg-claim-7"));
        assertEquals(CpuAccount.Group.POSTGRES_CLIENT,
                CpuAccount.group("kafka-producer-network-thread | pg-claim-producer-2"));
        assertEquals(CpuAccount.Group.OTHER, CpuAccount.group("kafka-producer-network-thread | producer-9"));
        assertEquals(CpuAccount.Group.JVM, CpuAccount.group("Common-Cleaner"));
    }

    @Test
    void shouldChargeAThreadsCpuInTheWindowToItsGroupAndCountOtherProcesses() throws Exception {
        AtomicLong ticks = new AtomicLong(1_000);
        CpuAccount.Probe probe = CpuAccount.start(Map.of("postgres", ticks::get));
        java.util.concurrent.CountDownLatch spun = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch counted = new java.util.concurrent.CountDownLatch(1);
        Thread spin = new Thread(() -> {
            java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
            long x = 0;
            while (mx.getCurrentThreadCpuTime() < 60_000_000L) { // 60 ms of its own CPU, however busy the machine
                x += System.nanoTime() % 7;
            }
            assertTrue(x >= 0);
            spun.countDown();
            try {
                counted.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "bench-load-generator");
        spin.start();
        ticks.addAndGet(50); // 0.5 s of the other process's CPU
        spun.await();
        CpuAccount.Window w = probe.stop(100);
        counted.countDown();
        spin.join();
        assertTrue(w.groupPerAction(CpuAccount.Group.LOAD) >= 600, "60 ms over 100 actions: " + w.describe());
        assertEquals(5_000, w.processPerAction("postgres"), 1e-6, "50 ticks = 500,000 us over 100 actions");
        assertNotNull(w.notes().get("cpu_us.machine"));
        // one thread spent 60 ms of CPU inside the window, so the window lasted at least that long on the wall clock
        assertTrue(w.seconds() >= 0.055, "window " + w.seconds() + " s");
        assertTrue(w.ownPerAction() >= w.processPerAction("postgres"));
        assertTrue(w.describe().contains("postgres"), w.describe());
        List<String> groups = CpuAccount.threadGroups();
        assertTrue(groups.stream().anyMatch(g -> g.startsWith("JVM") || g.startsWith("OTHER")), groups.toString());
    }

    @Test
    void shouldSplitAGroupedProcesssCpuByItsThreadGroupsOverTheWindow() {
        AtomicLong ticks = new AtomicLong(500);
        java.util.concurrent.atomic.AtomicReference<Map<CpuAccount.Group, Long>> nanos =
                new java.util.concurrent.atomic.AtomicReference<>(Map.of(CpuAccount.Group.STREAM, 1_000_000L,
                        CpuAccount.Group.JVM, 5_000_000L));
        CpuAccount.GroupedProcess node = new CpuAccount.GroupedProcess() {
            @Override
            public long getAsLong() {
                return ticks.get();
            }

            @Override
            public Map<CpuAccount.Group, Long> groupNanos() {
                return nanos.get();
            }
        };
        CpuAccount.Probe probe = CpuAccount.start(Map.of("node1", node));
        ticks.addAndGet(3); // 30 ms
        nanos.set(Map.of(CpuAccount.Group.STREAM, 21_000_000L, CpuAccount.Group.EXECUTOR, 4_000_000L,
                CpuAccount.Group.JVM, 11_000_000L));

        CpuAccount.Window w = probe.stop(10);

        assertEquals(20_000, w.processGroupsUs().get(CpuAccount.Group.STREAM), 1e-6);
        assertEquals(4_000, w.processGroupsUs().get(CpuAccount.Group.EXECUTOR), 1e-6);
        assertEquals(6_000, w.processGroupsUs().get(CpuAccount.Group.JVM), 1e-6);
        assertEquals(3_000, w.processPerAction("node1"), 1e-6, "30 ms over 10 actions");
        assertEquals("2000", w.notes().get("cpu_us.nodes.stream"));
        assertEquals("400", w.notes().get("cpu_us.nodes.executor"));
        assertTrue(w.describe().contains("; node JVMs: stream threads 2000, executor dispatch 400"), w.describe());
    }

    @Test
    void shouldPrintAndReadBackTheGroupNanosANodeAnswersWith() {
        Map<CpuAccount.Group, Long> own = CpuAccount.groupNanos();
        String line = CpuAccount.formatGroupNanos(own);

        assertTrue(line.startsWith("stream="), line);
        assertEquals(own, CpuAccount.parseGroupNanos(line));
        assertTrue(own.values().stream().mapToLong(Long::longValue).sum() > 0, line);
        assertEquals(0L, CpuAccount.parseGroupNanos("stream=7").get(CpuAccount.Group.BROKER));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> CpuAccount.parseGroupNanos("gpu=1"));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> CpuAccount.parseGroupNanos("stream"));
    }
}
