package io.actiongate.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The partitions of {@code --network-namespaces} on real namespaces (root only; skipped where {@code ip netns add}
 * is refused): a node cut off from its peers is still reached by this namespace's clients but exchanges nothing with
 * its peers; an isolated node is reached by nobody; healing undoes each; closing leaves no namespace or veth behind.
 */
@EnabledOnOs(OS.LINUX)
@Tag("system")
class NetworkNamespacesIT {

    private static final int PORT = 19092;

    @Test
    void shouldCutANodeOffFromItsPeersWhileClientsStillReachItThenIsolateItAndCleanUp() throws Exception {
        String why = NetworkNamespaces.unavailable();
        assumeTrue(why == null, () -> "no network namespaces here: " + why);
        List<Process> listeners = new ArrayList<>();
        try (NetworkNamespaces net = NetworkNamespaces.create(3)) {
            for (int i = 1; i <= 3; i++) {
                listeners.add(new ProcessBuilder(NetworkNamespaces.inside(i, Child.javaCommand("32m",
                        TcpListen.class.getName(), List.of(NetworkNamespaces.address(i), Integer.toString(PORT)))))
                        .redirectErrorStream(true).start());
            }
            for (Process p : listeners) {
                assertThat(new String(p.getInputStream().readNBytes(9), StandardCharsets.UTF_8))
                        .isEqualTo("listening");
            }
            for (int i = 1; i <= 3; i++) {
                assertThat(fromClient(i)).as("client -> node %d", i).isTrue();
            }
            assertThat(fromNode(1, 2)).isTrue();

            net.cutFromPeers(1);
            assertThat(fromClient(1)).as("clients still reach the cut node").isTrue();
            assertThat(fromClient(2)).isTrue();
            assertThat(fromNode(1, 2)).as("cut node -> peer").isFalse();
            assertThat(fromNode(3, 1)).as("peer -> cut node").isFalse();
            assertThat(fromNode(2, 3)).as("the peers among themselves").isTrue();
            net.heal(1);
            assertThat(fromNode(1, 2)).isTrue();
            assertThat(fromNode(3, 1)).isTrue();

            net.isolate(2);
            assertThat(fromClient(2)).as("client -> isolated node").isFalse();
            assertThat(fromNode(1, 2)).as("peer -> isolated node").isFalse();
            assertThat(fromClient(1)).isTrue();
            net.heal(2);
            assertThat(fromClient(2)).isTrue();
        } finally {
            listeners.forEach(Process::destroyForcibly);
        }
        assertThat(run("ip", "netns", "list")).doesNotContain(NetworkNamespaces.PREFIX + "-");
        assertThat(run("ip", "-o", "link", "show")).doesNotContain(NetworkNamespaces.PREFIX + "-r");
    }

    private static boolean fromClient(int node) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(NetworkNamespaces.address(node), PORT), 2_000);
            s.setSoTimeout(2_000);
            return s.getInputStream().read() == 'k';
        } catch (IOException e) {
            return false;
        }
    }

    /** A connection from inside node {@code from}'s namespace to node {@code to} (bash's /dev/tcp, 3 s at most). */
    private static boolean fromNode(int from, int to) throws Exception {
        Process p = new ProcessBuilder(NetworkNamespaces.inside(from, List.of("timeout", "3", "bash", "-c",
                "exec 3<>/dev/tcp/" + NetworkNamespaces.address(to) + "/" + PORT + " && head -c1 <&3")))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 && out.equals("k");
    }

    private static String run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(10, TimeUnit.SECONDS);
        return out;
    }
}
