package io.actiongate.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The network of {@code --network-namespaces}: each KRaft node in a Linux network namespace of
 * its own, all joined by veth pairs to one bridge in a hub namespace, and this (root) namespace joined to the same
 * bridge, so the run's clients reach every node and the nodes reach each other over one private /24 that exists
 * only inside namespaces this run made:
 *
 * <pre>
 *   root ns: PREFIX-r 10.213.28.1 --+
 *                                   |  hub ns: bridge PREFIX-br
 *   ns PREFIX-n1: eth0 10.213.28.11 +-- PREFIX-h1
 *   ns PREFIX-n2: eth0 10.213.28.12 +-- PREFIX-h2
 *   ns PREFIX-n3: eth0 10.213.28.13 +-- PREFIX-h3
 * </pre>
 *
 * <p>Two cuts: {@link #cutFromPeers} puts blackhole routes for the node's peers into the node's namespace and for the
 * node into each peer's, so the node and its peers cannot exchange a packet while this namespace (every client)
 * still reaches the node and the peers; {@link #isolate} takes the node's port on the bridge down, so nobody reaches
 * it. {@link #heal} undoes both. Nothing outside the run's namespaces changes except the one veth end in the root
 * namespace, which goes away with the hub namespace ({@link #close}, also run by the run's shutdown hook). It needs
 * root ({@code CAP_NET_ADMIN}, {@code CAP_SYS_ADMIN}) and iproute2's {@code ip}.
 */
final class NetworkNamespaces implements AutoCloseable {

    static final String PREFIX = "ag28";
    static final String SUBNET = "10.213.28.";
    static final String CLIENT_ADDRESS = SUBNET + "1";

    private final int nodes;
    private boolean[] cut;
    private boolean[] isolated;

    private NetworkNamespaces(int nodes) {
        this.nodes = nodes;
        this.cut = new boolean[nodes + 1];
        this.isolated = new boolean[nodes + 1];
    }

    /** Builds the namespaces, the bridge and the veth pairs (removing any left by an earlier run first). */
    static NetworkNamespaces create(int nodes) throws IOException, InterruptedException {
        removeLeftovers(nodes);
        NetworkNamespaces n = new NetworkNamespaces(nodes);
        try {
            String hub = hub();
            ip("netns", "add", hub);
            ip("-n", hub, "link", "set", "lo", "up");
            ip("-n", hub, "link", "add", PREFIX + "-br", "type", "bridge");
            ip("-n", hub, "link", "set", PREFIX + "-br", "up");
            // root <-> hub
            ip("link", "add", PREFIX + "-r", "type", "veth", "peer", "name", PREFIX + "-rh", "netns", hub);
            ip("-n", hub, "link", "set", PREFIX + "-rh", "master", PREFIX + "-br");
            ip("-n", hub, "link", "set", PREFIX + "-rh", "up");
            ip("addr", "add", CLIENT_ADDRESS + "/24", "dev", PREFIX + "-r");
            ip("link", "set", PREFIX + "-r", "up");
            for (int i = 1; i <= nodes; i++) {
                String ns = node(i);
                ip("netns", "add", ns);
                ip("-n", ns, "link", "set", "lo", "up");
                ip("-n", hub, "link", "add", port(i), "type", "veth", "peer", "name", "eth0", "netns", ns);
                ip("-n", hub, "link", "set", port(i), "master", PREFIX + "-br");
                ip("-n", hub, "link", "set", port(i), "up");
                ip("-n", ns, "addr", "add", address(i) + "/24", "dev", "eth0");
                ip("-n", ns, "link", "set", "eth0", "up");
            }
            return n;
        } catch (IOException | InterruptedException | RuntimeException e) {
            n.close();
            throw e;
        }
    }

    static String hub() {
        return PREFIX + "-hub";
    }

    /** The namespace of node {@code i} (1-based). */
    static String node(int i) {
        return PREFIX + "-n" + i;
    }

    static String address(int i) {
        return SUBNET + (10 + i);
    }

    private static String port(int i) {
        return PREFIX + "-h" + i;
    }

    /** The command that runs {@code command} inside node {@code i}'s namespace (the same process, exec'd). */
    static List<String> inside(int i, List<String> command) {
        List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", node(i)));
        c.addAll(command);
        return c;
    }

    int nodes() {
        return nodes;
    }

    /** Node {@code i} and its peers exchange no packet; every client still reaches all of them. */
    synchronized void cutFromPeers(int i) throws IOException, InterruptedException {
        if (cut[i]) {
            return;
        }
        for (int peer = 1; peer <= nodes; peer++) {
            if (peer != i) {
                ip("-n", node(i), "route", "add", "blackhole", address(peer) + "/32");
                ip("-n", node(peer), "route", "add", "blackhole", address(i) + "/32");
            }
        }
        cut[i] = true;
    }

    /** Nobody reaches node {@code i}: its port on the bridge is down. */
    synchronized void isolate(int i) throws IOException, InterruptedException {
        if (isolated[i]) {
            return;
        }
        ip("-n", hub(), "link", "set", port(i), "down");
        isolated[i] = true;
    }

    /** Undoes every cut and isolation of node {@code i}. */
    synchronized void heal(int i) throws IOException, InterruptedException {
        if (cut[i]) {
            for (int peer = 1; peer <= nodes; peer++) {
                if (peer != i) {
                    ip("-n", node(i), "route", "del", "blackhole", address(peer) + "/32");
                    ip("-n", node(peer), "route", "del", "blackhole", address(i) + "/32");
                }
            }
            cut[i] = false;
        }
        if (isolated[i]) {
            ip("-n", hub(), "link", "set", port(i), "up");
            isolated[i] = false;
        }
    }

    synchronized void healAll() throws IOException, InterruptedException {
        for (int i = 1; i <= nodes; i++) {
            heal(i);
        }
    }

    /** Deletes every namespace of the run (their veth ends and the bridge go with them). Never throws. */
    @Override
    public synchronized void close() {
        removeLeftovers(nodes);
    }

    private static void removeLeftovers(int nodes) {
        List<String> all = new ArrayList<>();
        for (int i = 1; i <= nodes; i++) {
            all.add(node(i));
        }
        all.add(hub());
        for (String ns : all) {
            try {
                if (exists(ns)) {
                    ip("netns", "del", ns);
                }
            } catch (IOException | RuntimeException e) {
                // best effort: report and go on
                System.err.println("could not delete network namespace " + ns + ": " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        try {
            // the root end goes with its peer in the hub; only a half-made run leaves it
            if (run(List.of("ip", "link", "show", PREFIX + "-r")).exit == 0) {
                ip("link", "del", PREFIX + "-r");
            }
        } catch (IOException | RuntimeException e) {
            System.err.println("could not delete " + PREFIX + "-r: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean exists(String ns) throws IOException, InterruptedException {
        Result r = run(List.of("ip", "netns", "list"));
        for (String line : r.output.split("\n")) {
            if (line.strip().split(" ")[0].equals(ns)) {
                return true;
            }
        }
        return false;
    }

    /** Whether this process can make network namespaces here (root, iproute2); the reason when not. */
    static String unavailable() {
        try {
            String probe = PREFIX + "-probe";
            Result add = run(List.of("ip", "netns", "add", probe));
            if (add.exit != 0) {
                return "ip netns add failed: " + add.output.strip();
            }
            run(List.of("ip", "netns", "del", probe));
            return null;
        } catch (IOException e) {
            return "iproute2's ip is not available: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    static void ip(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("ip"));
        command.addAll(List.of(args));
        Result r = run(command);
        if (r.exit != 0) {
            throw new IOException(String.join(" ", command) + " failed (" + r.exit + "): " + r.output.strip());
        }
    }

    private record Result(int exit, String output) {
    }

    private static Result run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not finish within 30 s");
        }
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8).toLowerCase(Locale.ROOT)
                .isEmpty() ? "" : new String(out, StandardCharsets.UTF_8));
    }
}
