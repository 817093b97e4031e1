package io.actiongate.connector.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Small {@code /bin/sh} scripts standing in for {@code kubectl} and {@code gh}, written to a test's temp dir. Each run
 * appends its arguments (one per line, then a {@code --end--} line) to {@code calls.log} and marks
 * {@code applied-<idempotency key>}; what it does next depends on the object named in the vector:
 * {@code fail} exits 3 after printing a token, {@code slow} sleeps (with a grandchild) far past any test timeout,
 * {@code killed} kills itself with SIGKILL, {@code loud} prints 2 MiB. The status script exits 0 when the marker of
 * {@code $ACTIONGATE_IDEMPOTENCY_KEY} exists. With {@code STANDIN_MODE=hang} or {@code killed} in its environment, every
 * run acts and then hangs, or acts and then dies of SIGKILL.
 */
public final class StandInTools {

    public static final String LEAKED_TOKEN = "standin-output-token-7f3e2a";

    private final Path dir;

    public StandInTools(Path dir) {
        this.dir = dir;
        write("kubectl", tool());
        write("gh", tool());
        write("status", """
                #!/bin/sh
                [ -f "$STANDIN_DIR/applied-$ACTIONGATE_IDEMPOTENCY_KEY" ] && exit 0
                exit 1
                """);
        write("not-executable", "#!/bin/sh\nexit 0\n");
        try {
            Files.setPosixFilePermissions(dir.resolve("not-executable"), PosixFilePermissions.fromString("rw-------"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String tool() {
        return """
                #!/bin/sh
                for a in "$@"; do printf '%s\\n' "$a" >> "$STANDIN_DIR/calls.log"; done
                printf -- '--end--\\n' >> "$STANDIN_DIR/calls.log"
                /usr/bin/env > "$STANDIN_DIR/env.log"
                touch "$STANDIN_DIR/applied-$ACTIONGATE_IDEMPOTENCY_KEY"
                case "${STANDIN_MODE:-}" in
                  hang) sleep 30 & wait; exit 0 ;;
                  killed) kill -9 $$ ;;
                esac
                for a in "$@"; do
                  case "$a" in
                    fail) echo "error: token=@TOKEN@ Bearer @TOKEN@ refused, key ${GH_TOKEN:-none}"; exit 3 ;;
                    slow) sleep 30 & echo $! > "$STANDIN_DIR/grandchild.pid"; echo $$ > "$STANDIN_DIR/child.pid"; wait; exit 0 ;;
                    killed) kill -9 $$ ;;
                    loud) head -c 2097152 /dev/zero | tr '\\0' 'x'; exit 0 ;;
                  esac
                done
                echo "ok @TOKEN@"
                exit 0
                """.replace("@TOKEN@", LEAKED_TOKEN);
    }

    private void write(String name, String script) {
        try {
            Path file = dir.resolve(name);
            Files.writeString(file, script, StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Path dir() {
        return dir;
    }

    public Path path(String name) {
        return dir.resolve(name);
    }

    /** {@code connectors.cli.*} settings (prefix stripped) that run the stand-ins. */
    public Map<String, String> settings() {
        Map<String, String> s = new HashMap<>();
        for (String tool : List.of("kubectl", "gh")) {
            s.put(tool + ".path", path(tool).toString());
            s.put(tool + ".status-path", path("status").toString());
            s.put(tool + ".env.STANDIN_DIR", dir.toString());
        }
        s.put("working-dir", dir.toString());
        s.put("timeout-ms", "5000");
        return s;
    }

    /** The argument vectors the stand-ins were run with, in order (without argv[0]). */
    public List<List<String>> calls() {
        Path log = dir.resolve("calls.log");
        if (!Files.exists(log)) {
            return List.of();
        }
        try {
            List<List<String>> calls = new java.util.ArrayList<>();
            List<String> current = new java.util.ArrayList<>();
            for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                if (line.equals("--end--")) {
                    calls.add(List.copyOf(current));
                    current.clear();
                } else {
                    current.add(line);
                }
            }
            return calls;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** How many distinct idempotency keys the stand-ins have acted for. */
    public long effects() {
        try (var files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().startsWith("applied-")).count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The environment the last stand-in run saw. */
    public Map<String, String> lastEnvironment() {
        try {
            Map<String, String> env = new HashMap<>();
            for (String line : Files.readAllLines(dir.resolve("env.log"), StandardCharsets.UTF_8)) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    env.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
            return env;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public long pid(String file) {
        try {
            return Long.parseLong(Files.readString(dir.resolve(file)).strip());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
