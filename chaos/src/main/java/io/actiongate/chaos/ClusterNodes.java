package io.actiongate.chaos;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.Uuid;

/**
 * The three (or more) KRaft nodes of {@code --cluster} mode, each a {@link ClusterNodeMain} child JVM with node id
 * 1..n, fixed loopback client and controller ports and its own data directory, so a node killed and restarted comes
 * back as the same member of the quorum.
 */
final class ClusterNodes {

    private final List<Child> nodes;
    private final List<Integer> clientPorts;
    private final List<String> hosts;

    private ClusterNodes(List<Child> nodes, List<Integer> clientPorts, List<String> hosts) {
        this.nodes = List.copyOf(nodes);
        this.clientPorts = List.copyOf(clientPorts);
        this.hosts = List.copyOf(hosts);
    }

    /** Picks the ports and the cluster id; starts nothing. */
    static ClusterNodes create(int count, Path dataRoot, Path logs, String heap) throws IOException {
        return create(count, dataRoot, logs, heap, null);
    }

    /**
     * @param net when given, node i runs inside {@link NetworkNamespaces#node(int) its namespace} on
     *            {@link NetworkNamespaces#address(int) its address}; else every node on 127.0.0.1
     */
    static ClusterNodes create(int count, Path dataRoot, Path logs, String heap, NetworkNamespaces net)
            throws IOException {
        List<Integer> client = new ArrayList<>();
        List<Integer> controller = new ArrayList<>();
        try (PortReservation ports = new PortReservation()) {
            for (int i = 0; i < count; i++) {
                client.add(ports.next());
                controller.add(ports.next());
            }
        }
        List<String> hosts = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            hosts.add(net == null ? "127.0.0.1" : NetworkNamespaces.address(i + 1));
        }
        StringBuilder voters = new StringBuilder();
        for (int i = 0; i < count; i++) {
            voters.append(i == 0 ? "" : ",").append(i + 1).append('@').append(hosts.get(i)).append(':')
                    .append(controller.get(i));
        }
        String clusterId = Uuid.randomUuid().toString();
        List<Child> children = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int id = i + 1;
            List<String> command = Child.javaCommand(heap, ClusterNodeMain.class.getName(),
                    List.of(Integer.toString(id), Integer.toString(client.get(i)), voters.toString(),
                            dataRoot.resolve("broker-" + id).toString(), clusterId, hosts.get(i)));
            children.add(new Child("broker-" + id, net == null ? command : NetworkNamespaces.inside(id, command),
                    Map.of(), logs, ClusterNodeMain.READY));
        }
        return new ClusterNodes(children, client, hosts);
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
        List<String> servers = new ArrayList<>();
        for (int i = 0; i < clientPorts.size(); i++) {
            servers.add(hosts.get(i) + ":" + clientPorts.get(i));
        }
        return String.join(",", servers);
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
