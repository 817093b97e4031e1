package io.actiongate.chaos;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.apache.kafka.common.Uuid;

/**
 * The three (or more) KRaft nodes of {@code --cluster} mode, each a {@link ClusterNodeMain} child JVM with node id
 * 1..n, fixed loopback client and controller ports and its own data directory, so a node killed and restarted comes
 * back as the same member of the quorum.
 */
final class ClusterNodes {

    private final List<Child> nodes;
    private final List<Integer> clientPorts;

    private ClusterNodes(List<Child> nodes, List<Integer> clientPorts) {
        this.nodes = List.copyOf(nodes);
        this.clientPorts = List.copyOf(clientPorts);
    }

    /** Picks the ports and the cluster id; starts nothing. */
    static ClusterNodes create(int count, Path dataRoot, Path logs, String heap) throws IOException {
        List<Integer> client = new ArrayList<>();
        List<Integer> controller = new ArrayList<>();
        try (PortReservation ports = new PortReservation()) {
            for (int i = 0; i < count; i++) {
                client.add(ports.next());
                controller.add(ports.next());
            }
        }
        StringBuilder voters = new StringBuilder();
        for (int i = 0; i < count; i++) {
            voters.append(i == 0 ? "" : ",").append(i + 1).append("@127.0.0.1:").append(controller.get(i));
        }
        String clusterId = Uuid.randomUuid().toString();
        List<Child> children = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int id = i + 1;
            children.add(new Child("broker-" + id, Child.javaCommand(heap, ClusterNodeMain.class.getName(),
                    List.of(Integer.toString(id), Integer.toString(client.get(i)), voters.toString(),
                            dataRoot.resolve("broker-" + id).toString(), clusterId)), Map.of(), logs,
                    ClusterNodeMain.READY));
        }
        return new ClusterNodes(children, client);
    }

    List<Child> nodes() {
        return nodes;
    }

    /** The node with KRaft node id {@code nodeId} (1-based). */
    Child node(int nodeId) {
        if (nodeId < 1 || nodeId > nodes.size()) {
            throw new IllegalArgumentException("no node " + nodeId + " in a cluster of " + nodes.size());
        }
        return nodes.get(nodeId - 1);
    }

    int nodeId(Child node) {
        return nodes.indexOf(node) + 1;
    }

    String bootstrap() {
        return clientPorts.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    /** Starts every node at once (a node becomes ready only once a majority of controllers runs). */
    void startAll(long timeoutMs) throws InterruptedException {
        nodes.forEach(Child::start);
        for (Child node : nodes) {
            if (!node.awaitReady(timeoutMs)) {
                throw new IllegalStateException(node.name() + " did not start within " + timeoutMs / 1000 + " s");
            }
        }
    }

    void killAll() throws InterruptedException {
        for (Child node : nodes) {
            node.kill9();
        }
    }

    /** Holds every picked port open until all are picked, so no two are the same. */
    private static final class PortReservation implements AutoCloseable {
        private final List<java.net.ServerSocket> sockets = new ArrayList<>();

        int next() throws IOException {
            java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
            sockets.add(socket);
            return socket.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            for (java.net.ServerSocket s : sockets) {
                s.close();
            }
        }
    }
}
