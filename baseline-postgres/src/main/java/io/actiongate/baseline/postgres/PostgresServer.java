package io.actiongate.baseline.postgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.nio.file.attribute.UserPrincipalNotFoundException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import javax.sql.DataSource;

import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A throwaway PostgreSQL server from the operating system's packages, for the benchmark's claim-store baseline:
 * {@code initdb} in a fresh directory, listening on 127.0.0.1 only on a free port (its unix socket in the same
 * directory), started with {@code pg_ctl start -w}; {@link #close} stops it and deletes the directory. The
 * server keeps PostgreSQL's defaults, durability included ({@code fsync}, {@code synchronous_commit} on); only
 * {@code initdb}'s own flush of the fresh cluster is skipped ({@code --no-sync}), which the server never relies on.
 *
 * <p>PostgreSQL refuses to run as root, so when this JVM runs as root the server runs through {@code runuser} as the
 * OS user {@value #OS_USER} (created by Debian's {@code postgresql} package) or, where that user does not exist (a
 * machine with PostgreSQL's binaries from Maven Central only), as {@value #FALLBACK_OS_USER}, owning its directory;
 * ancestors of that directory closed to others get the traverse bit (only) for the run, restored by {@link #close}.
 */
public final class PostgresServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresServer.class);

    /** The OS user the server runs as when this JVM is root. */
    public static final String OS_USER = "postgres";
    /** The OS user it runs as when this JVM is root and {@value #OS_USER} does not exist (every Debian has nobody). */
    public static final String FALLBACK_OS_USER = "nobody";
    /** Overrides the OS user the server runs as when this JVM is root. */
    public static final String OS_USER_PROPERTY = "actiongate.bench.postgres.os-user";
    /** The database role and database initdb creates (trust authentication on loopback only). */
    public static final String ROLE = "bench";
    /** Overrides where the binaries are looked for (a directory holding initdb, pg_ctl and postgres). */
    public static final String BIN_DIR_PROPERTY = "actiongate.bench.postgres.bin";
    public static final List<String> BINARIES = List.of("initdb", "pg_ctl", "postgres");
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(120);

    /** PostgreSQL's binaries were not found: the message says where they were looked for and how to get them. */
    public static final class UnavailableException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        public UnavailableException(String message) {
            super(message);
        }
    }

    private final Path root;
    private final Path dataDir;
    private final Path binDir;
    private final List<String> runAs;
    private final int port;
    private final Thread shutdownHook;
    /** Ancestors of {@link #root} given the others-may-traverse bit for the run, with their permissions before. */
    private final Map<Path, Set<PosixFilePermission>> opened = new LinkedHashMap<>();
    private boolean stopped;

    private PostgresServer(Path root, Path binDir, List<String> runAs, int port) {
        this.root = root;
        this.dataDir = root.resolve("data");
        this.binDir = binDir;
        this.runAs = runAs;
        this.port = port;
        this.shutdownHook = new Thread(this::release, "bench-postgres-stop");
    }

    /**
     * The directory holding {@code initdb}, {@code pg_ctl} and {@code postgres}: the system property
     * {@value #BIN_DIR_PROPERTY} when set, else the newest {@code /usr/lib/postgresql/<version>/bin} (Debian's
     * layout), else {@code pg_config --bindir}, else the directory of {@code initdb} on the PATH.
     *
     * @throws UnavailableException when none holds all three
     */
    public static Path findBinaries() {
        List<String> looked = new ArrayList<>();
        String configured = System.getProperty(BIN_DIR_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            Path dir = Path.of(configured);
            if (hasBinaries(dir)) {
                return dir;
            }
            throw new UnavailableException("PostgreSQL not found: -D" + BIN_DIR_PROPERTY + "=" + configured
                    + " does not hold executable " + String.join(", ", BINARIES));
        }
        Path debian = Path.of("/usr/lib/postgresql");
        looked.add(debian + "/<version>/bin");
        if (Files.isDirectory(debian)) {
            try (Stream<Path> versions = Files.list(debian)) {
                Optional<Path> newest = versions.filter(v -> v.getFileName().toString().matches("\\d+(\\.\\d+)?"))
                        .sorted(Comparator.comparingDouble((Path v) -> Double.parseDouble(v.getFileName().toString()))
                                .reversed())
                        .map(v -> v.resolve("bin")).filter(PostgresServer::hasBinaries).findFirst();
                if (newest.isPresent()) {
                    return newest.get();
                }
            } catch (IOException e) {
                looked.add("(cannot list " + debian + ": " + e.getMessage() + ")");
            }
        }
        looked.add("pg_config --bindir");
        Optional<Path> fromPgConfig = pgConfigBinDir();
        if (fromPgConfig.isPresent() && hasBinaries(fromPgConfig.get())) {
            return fromPgConfig.get();
        }
        looked.add("PATH");
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(java.io.File.pathSeparator)) {
                Path initdb = Path.of(dir).resolve("initdb");
                if (Files.isExecutable(initdb)) {
                    Path real = realParent(initdb);
                    if (hasBinaries(real)) {
                        return real;
                    }
                }
            }
        }
        throw new UnavailableException("PostgreSQL is not installed: no directory with " + String.join(", ", BINARIES)
                + " in " + String.join(", ", looked) + ". Install Debian's package (apt-get install postgresql), "
                + "point -D" + BIN_DIR_PROPERTY + "=DIR at its bin directory (the tests extract Maven Central's "
                + "io.zonky.test.postgres binaries there by themselves), or leave the part out with --skip postgres.");
    }

    private static boolean hasBinaries(Path dir) {
        return BINARIES.stream().allMatch(b -> Files.isExecutable(dir.resolve(b)));
    }

    private static Path realParent(Path file) {
        try {
            return file.toRealPath().getParent();
        } catch (IOException e) {
            return file.getParent();
        }
    }

    private static Optional<Path> pgConfigBinDir() {
        try {
            Process p = new ProcessBuilder("pg_config", "--bindir").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 && !out.isEmpty()) {
                return Optional.of(Path.of(out));
            }
        } catch (IOException e) {
            // no pg_config on the PATH
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Optional.empty();
    }

    /**
     * Creates a cluster in a new directory under {@code parent} and starts it; the caller closes it.
     *
     * @throws UnavailableException when PostgreSQL's binaries are not found
     */
    public static PostgresServer start(Path parent) throws IOException, InterruptedException {
        Path binDir = findBinaries();
        Path root = Files.createTempDirectory(Files.createDirectories(parent), "postgres-");
        List<String> runAs = List.of();
        try {
            if (isRoot()) {
                UserPrincipalLookupService users = root.getFileSystem().getUserPrincipalLookupService();
                String configured = System.getProperty(OS_USER_PROPERTY, "").strip();
                List<String> candidates = configured.isEmpty() ? List.of(OS_USER, FALLBACK_OS_USER)
                        : List.of(configured);
                String osUser = null;
                UserPrincipal user = null;
                for (String candidate : candidates) {
                    try {
                        user = users.lookupPrincipalByName(candidate);
                        osUser = candidate;
                        break;
                    } catch (UserPrincipalNotFoundException e) {
                        // try the next one
                    }
                }
                if (osUser == null) {
                    throw new UnavailableException("running as root, and PostgreSQL refuses to: none of the OS users "
                            + String.join(", ", candidates) + " to run it as exists");
                }
                PosixFileAttributeView view = Files.getFileAttributeView(root, PosixFileAttributeView.class);
                view.setOwner(user);
                view.setGroup(primaryGroup(users, osUser));
                runAs = List.of("runuser", "-u", osUser, "--");
                LOG.info("running PostgreSQL as OS user {} (this JVM is root)", osUser);
            }
        } catch (IOException | RuntimeException e) {
            deleteQuietly(root);
            throw e;
        }
        PostgresServer server = new PostgresServer(root, binDir, runAs, freePort());
        Runtime.getRuntime().addShutdownHook(server.shutdownHook);
        try {
            if (!runAs.isEmpty()) {
                server.openAncestors();
            }
            server.initAndStart();
            return server;
        } catch (IOException | InterruptedException | RuntimeException e) {
            server.close(); // stops whatever started, deletes the directory
            throw e;
        }
    }

    /**
     * Lets the server's OS user reach its directory: every ancestor that others may not traverse (a JUnit or
     * {@code mktemp -d} directory is {@code rwx------}) gets the traverse bit only (no listing, no reading) until
     * {@link #close} restores it.
     */
    private void openAncestors() throws IOException {
        for (Path dir = root.toAbsolutePath().getParent(); dir != null; dir = dir.getParent()) {
            Set<PosixFilePermission> before = Files.getPosixFilePermissions(dir);
            if (!before.contains(PosixFilePermission.OTHERS_EXECUTE)) {
                Set<PosixFilePermission> after = EnumSet.copyOf(before);
                after.add(PosixFilePermission.OTHERS_EXECUTE);
                Files.setPosixFilePermissions(dir, after);
                opened.put(dir, before);
                LOG.info("{} made traversable for OS user {} during the run", dir, runAs.get(2));
            }
        }
    }

    private void restoreAncestors() {
        opened.forEach((dir, before) -> {
            try {
                if (Files.isDirectory(dir)) {
                    Files.setPosixFilePermissions(dir, before);
                }
            } catch (IOException e) {
                LOG.warn("cannot restore the permissions of {}: {}", dir, e.toString());
            }
        });
        opened.clear();
    }

    /** The user's own group ({@code postgres}), else Debian's {@code nogroup} ({@code nobody}'s). */
    private static GroupPrincipal primaryGroup(UserPrincipalLookupService users, String osUser) throws IOException {
        for (String name : List.of(osUser, "nogroup")) {
            try {
                return users.lookupPrincipalByGroupName(name);
            } catch (UserPrincipalNotFoundException e) {
                // try the next one
            }
        }
        throw new UnavailableException("no group " + osUser + " or nogroup for the PostgreSQL OS user " + osUser);
    }

    private static boolean isRoot() {
        try {
            return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private void initAndStart() throws IOException, InterruptedException {
        if (!runAs.isEmpty() && run(List.of("test", "-w", root.toString())) != 0) {
            throw new IllegalStateException("OS user " + runAs.get(2) + " cannot write " + root
                    + " (a parent directory is closed to it): pass a --state-dir it can reach, e.g. under /tmp");
        }
        Path initLog = root.resolve("initdb.log");
        int rc = run(List.of(binDir.resolve("initdb").toString(), "-D", dataDir.toString(), "-U", ROLE,
                "--auth=trust", "-E", "UTF8", "--no-locale", "--no-sync"), initLog);
        if (rc != 0) {
            throw new IllegalStateException("initdb failed (exit " + rc + "): " + tail(initLog));
        }
        // loopback only, a free port, the unix socket in our own directory; every other setting stays the default
        Files.writeString(dataDir.resolve("postgresql.conf"), String.format(Locale.ROOT,
                "%n# actiongate benchmark%nlisten_addresses = '127.0.0.1'%nport = %d%nunix_socket_directories = '%s'%n",
                port, root), StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        Path serverLog = root.resolve("server.log");
        Path ctlLog = root.resolve("pg_ctl.log");
        rc = run(List.of(binDir.resolve("pg_ctl").toString(), "-D", dataDir.toString(), "-l", serverLog.toString(),
                "-w", "-t", "90", "start"), ctlLog);
        if (rc != 0) {
            throw new IllegalStateException("pg_ctl start failed (exit " + rc + "): " + tail(ctlLog) + " | "
                    + tail(serverLog));
        }
        LOG.info("PostgreSQL from {} listening on 127.0.0.1:{}", binDir, port);
    }

    public int port() {
        return port;
    }

    public Path binDir() {
        return binDir;
    }

    /** The postmaster's pid (the first line of {@code postmaster.pid}); its backends are its children. */
    public long postmasterPid() {
        try {
            return Long.parseLong(Files.readAllLines(dataDir.resolve("postmaster.pid")).get(0).strip());
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
        }
    }

    /** A data source for database {@code postgres} as role {@value #ROLE} over TCP on 127.0.0.1. */
    public DataSource dataSource() {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setServerNames(new String[] {"127.0.0.1"});
        ds.setPortNumbers(new int[] {port});
        ds.setDatabaseName("postgres");
        ds.setUser(ROLE);
        ds.setApplicationName("actiongate-bench");
        return ds;
    }

    /** The server's version and the settings its durability rests on, as {@code SHOW} reports them. */
    public Map<String, String> durabilitySettings() throws SQLException {
        Map<String, String> settings = new LinkedHashMap<>();
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            for (String name : List.of("server_version", "fsync", "synchronous_commit", "wal_sync_method",
                    "full_page_writes")) {
                try (ResultSet rs = s.executeQuery("SHOW " + name)) {
                    rs.next();
                    settings.put(name, rs.getString(1));
                }
            }
        }
        return settings;
    }

    private int run(List<String> command) throws IOException, InterruptedException {
        return run(command, root.resolve("command.log"));
    }

    private int run(List<String> command, Path log) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>(runAs);
        full.addAll(command);
        ProcessBuilder pb = new ProcessBuilder(full).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().put("LC_ALL", "C");
        pb.environment().remove("PGDATA");
        Process p = pb.start();
        if (!p.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " did not finish within " + COMMAND_TIMEOUT);
        }
        return p.exitValue();
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join(" / ", lines.subList(Math.max(0, lines.size() - 8), lines.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private synchronized void stopQuietly() {
        if (stopped) {
            return;
        }
        stopped = true;
        try {
            Path ctlLog = root.resolve("pg_ctl.log");
            String pgCtl = binDir.resolve("pg_ctl").toString();
            if (run(List.of(pgCtl, "-D", dataDir.toString(), "-m", "fast", "-w", "-t", "60", "stop"), ctlLog) != 0
                    && Files.exists(dataDir.resolve("postmaster.pid"))) {
                LOG.warn("PostgreSQL did not stop in fast mode: {}", tail(ctlLog));
                run(List.of(pgCtl, "-D", dataDir.toString(), "-m", "immediate", "-w", "stop"), ctlLog);
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot stop PostgreSQL in {}: {}", dataDir, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the server, deletes its directory and restores the permissions of its ancestors. */
    @Override
    public void close() {
        release();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook runs (or ran) anyway
        }
    }

    /** What {@link #close} does, also run by the shutdown hook when the JVM ends first (Ctrl-C). */
    private synchronized void release() {
        stopQuietly();
        deleteQuietly(root);
        restoreAncestors();
    }

    /** Deletes {@code dir} and all below it, as much as it can: what is left behind lies in a temporary directory. */
    static void deleteQuietly(Path dir) {
        try (Stream<Path> paths = Files.exists(dir) ? Files.walk(dir) : Stream.empty()) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            LOG.debug("cannot delete {}: {}", dir, e.toString());
        }
    }
}
