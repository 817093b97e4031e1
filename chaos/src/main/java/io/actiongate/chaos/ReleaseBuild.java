package io.actiongate.chaos;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The release an upgrade run starts from: the production jar ({@code cli}'s shaded jar, every role) built from a git
 * ref of this repository. The ref is checked out in a temporary clone ({@code git clone --shared}: no network, the
 * checkout it runs from untouched), built with Maven offline ({@code -o -Pdist -DskipTests package} of {@code cli} and the
 * modules it needs: a few minutes on two cores; nothing is installed; online when a dependency of that commit is not
 * in the local repository), and the jar is kept by commit under the cache folder, so a second run from the same
 * commit builds nothing.
 */
final class ReleaseBuild {

    /**
     * The ref when the repository has no release tag: what main held when rolling upgrades were first tested.
     */
    static final String FIRST_REF = "a42d5b3";
    private static final long BUILD_TIMEOUT_MINUTES = 40;

    /**
     * A built release: the ref asked for, the commit it names, the jar, and {@code client}, the same build's
     * {@code actiongate-client} jar when the production jar lacks it (null otherwise; see {@link #CLIENT_CLASS}).
     */
    record Built(String ref, String commit, Path jar, Path client) {
        String shortCommit() {
            return commit.substring(0, Math.min(7, commit.length()));
        }

        /** The class path its roles run on. */
        String classpath() {
            return client == null ? jar.toString() : jar + java.io.File.pathSeparator + client;
        }
    }

    /**
     * A class of {@code actiongate-client}, which the MCP gateway role proposes through. The production jar of
     * a42d5b3 (and of every commit until cli's pom was fixed) does not hold it: cli declared the client at test
     * scope, which took it out of the shaded jar, so {@code run --roles=mcp-gateway} failed there with
     * NoClassDefFoundError. An upgrade run from such a release adds the same build's client jar to its class path.
     */
    static final String CLIENT_CLASS = "io/actiongate/client/ActionGateClient.class";

    private ReleaseBuild() {
    }

    /** The checkout this build runs from: the working folder's git top level, else the one holding this class. */
    static Path repository() throws IOException, InterruptedException {
        List<Path> candidates = new ArrayList<>();
        candidates.add(Path.of(System.getProperty("user.dir")));
        try {
            Path code = Path.of(ReleaseBuild.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            candidates.add(Files.isDirectory(code) ? code : code.getParent());
        } catch (java.net.URISyntaxException | RuntimeException e) {
            // no code source to start from: the working folder only
        }
        for (Path start : candidates) {
            Run top = run(start, "git", "rev-parse", "--show-toplevel");
            if (top.code() == 0 && !top.output().isBlank()) {
                return Path.of(top.output().strip());
            }
        }
        throw new IllegalStateException("--upgrade-from needs this repository's git checkout: neither "
                + candidates + " is inside one (run from the checkout)");
    }

    /** The last release tag ({@code v*}) of {@code repository}, else {@link #FIRST_REF}. */
    static String defaultRef(Path repository) throws IOException, InterruptedException {
        Run tag = run(repository, "git", "describe", "--tags", "--abbrev=0", "--match", "v*");
        return tag.code() == 0 && !tag.output().isBlank() ? tag.output().strip() : FIRST_REF;
    }

    /**
     * The production jar of {@code ref}: from {@code cache/<commit>/} when built before, else built now (its
     * progress to {@code out}).
     */
    static Built build(Path repository, String ref, Path cache, PrintWriter out)
            throws IOException, InterruptedException {
        Run resolved = run(repository, "git", "rev-parse", "--verify", "--quiet", ref + "^{commit}");
        if (resolved.code() != 0 || resolved.output().isBlank()) {
            throw new IllegalArgumentException("--upgrade-from " + ref + ": no such commit in " + repository);
        }
        String commit = resolved.output().strip();
        Path jar = cache.resolve(commit).resolve("actiongate-cli.jar");
        Path client = cache.resolve(commit).resolve("actiongate-client.jar");
        if (Files.isRegularFile(jar)) {
            out.println("previous release " + ref + " (" + commit.substring(0, 7) + "): built before, " + jar);
            out.flush();
            return new Built(ref, commit, jar, Files.isRegularFile(client) ? client : null);
        }
        Path work = Files.createTempDirectory("actiongate-release-" + commit.substring(0, 7) + "-");
        try {
            Path src = work.resolve("src");
            check(run(work, "git", "clone", "-q", "--shared", "--no-checkout", repository.toString(), src.toString()),
                    "git clone of " + repository);
            check(run(src, "git", "checkout", "-q", commit), "git checkout " + commit);
            out.println("previous release " + ref + " (" + commit.substring(0, 7) + "): building its production jar "
                    + "in " + src + " (mvn -o -Pdist -DskipTests package -pl cli -am; a few minutes)");
            out.flush();
            long started = System.nanoTime();
            Run mvn = run(src, "mvn", "-o", "-q", "-B", "-Pdist", "-DskipTests", "-Dmaven.javadoc.skip=true", "package", "-pl",
                    "cli", "-am");
            if (mvn.code() != 0) {
                // a dependency of that commit not in the local repository yet: let Maven fetch it
                out.println("previous release " + ref + ": the offline build failed; building again with Maven "
                        + "Central for the dependencies it lacks");
                out.flush();
                mvn = run(src, "mvn", "-q", "-B", "-Pdist", "-DskipTests", "-Dmaven.javadoc.skip=true", "package", "-pl", "cli",
                        "-am");
            }
            check(mvn, "the build of " + ref);
            Path built;
            try (Stream<Path> jars = Files.list(src.resolve("cli").resolve("target"))) {
                built = jars.filter(p -> p.getFileName().toString().matches("actiongate-cli-.*-all\\.jar"))
                        .findFirst().orElseThrow(() -> new IllegalStateException("the build of " + ref
                                + " made no cli/target/actiongate-cli-*-all.jar"));
            }
            Files.createDirectories(jar.getParent());
            Path withClient = null;
            if (!holds(built, CLIENT_CLASS)) {
                Path clientJar;
                try (Stream<Path> jars = Files.list(src.resolve("client").resolve("target"))) {
                    clientJar = jars.filter(p -> p.getFileName().toString().matches("actiongate-client-[^-]+(-SNAPSHOT)?\\.jar"))
                            .findFirst().orElse(null);
                }
                if (clientJar != null) {
                    Files.copy(clientJar, client, StandardCopyOption.REPLACE_EXISTING);
                    withClient = client;
                    out.println("previous release " + ref + ": its production jar lacks actiongate-client (its MCP "
                            + "gateway cannot start from it): its roles run with the same build's client jar added");
                }
            }
            // the jar last: its presence marks a complete build in the cache
            Path partial = jar.resolveSibling(jar.getFileName() + ".partial");
            Files.copy(built, partial, StandardCopyOption.REPLACE_EXISTING);
            Files.move(partial, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            out.printf("previous release %s built in %d s: %s%n", ref,
                    TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started), jar);
            out.flush();
            return new Built(ref, commit, jar, withClient);
        } finally {
            deleteTree(work);
        }
    }

    private static boolean holds(Path jar, String entry) throws IOException {
        try (java.util.jar.JarFile file = new java.util.jar.JarFile(jar.toFile())) {
            return file.getEntry(entry) != null;
        }
    }

    private record Run(int code, String output) {
    }

    private static Run run(Path dir, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        byte[] output = p.getInputStream().readAllBytes();
        if (!p.waitFor(BUILD_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " did not end within "
                    + BUILD_TIMEOUT_MINUTES + " minutes");
        }
        return new Run(p.exitValue(), new String(output, StandardCharsets.UTF_8));
    }

    private static void check(Run run, String what) {
        if (run.code() != 0) {
            String tail = run.output().lines().filter(l -> !l.isBlank()).reduce((a, b) -> b).orElse("");
            throw new IllegalStateException(what + " failed (exit " + run.code() + "): " + tail);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
