package io.actiongate.dev;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Stand-ins for {@code kubectl} and {@code gh} that {@code actiongate dev} runs instead of the real tools, so the cli
 * connector works out of the box: reads print a plausible answer, effects append one tab-separated line (time,
 * action, idempotency key, tool) to {@code effects.log} in the stand-ins' directory and change nothing real, and a
 * read-only status command confirms an effect by finding its key there. They are rewritten on every start; the
 * user's own {@code connectors.cli.*} settings (a real kubectl, say) win over {@link #settings}.
 */
public final class DevCliTools {

    static final String KUBECTL = """
            #!/bin/sh
            # actiongate dev stand-in for kubectl: answers like kubectl, touches no cluster
            for a in "$@"; do
              case "$a" in
                get|describe|top|logs|events|explain|api-resources|api-versions|version|cluster-info|diff|wait|auth)
                  echo "NAME                   READY   STATUS    RESTARTS   AGE"
                  echo "web-7d4b9c6f5d-x2x9q   1/1     Running   0          3d"
                  exit 0 ;;
                apply|create|delete|patch|replace|scale|autoscale|annotate|label|cordon|uncordon|drain|taint|set|run|expose|rollout)
                  printf '%s\\t%s\\t%s\\tkubectl %s\\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$ACTIONGATE_ACTION" \\
                    "$ACTIONGATE_IDEMPOTENCY_KEY" "$a" >> "$DEV_CLI_STATE/effects.log"
                  echo "kubectl $a: done (actiongate dev stand-in, nothing real changed)"
                  exit 0 ;;
              esac
            done
            echo "error: the actiongate dev stand-in does not know this command" >&2
            exit 1
            """;

    static final String GH = """
            #!/bin/sh
            # actiongate dev stand-in for gh: answers like gh, touches no repository
            for a in "$@"; do
              case "$a" in
                view|list|status|diff|checks|search)
                  echo "#12  Fix flaky test  fix/flaky  OPEN"
                  exit 0 ;;
                create|merge|close|reopen|comment|review|edit|ready|delete|rerun|cancel|run|enable|disable|upload)
                  printf '%s\\t%s\\t%s\\tgh %s\\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$ACTIONGATE_ACTION" \\
                    "$ACTIONGATE_IDEMPOTENCY_KEY" "$a" >> "$DEV_CLI_STATE/effects.log"
                  echo "gh $a: done (actiongate dev stand-in, nothing real changed)"
                  exit 0 ;;
              esac
            done
            echo "error: the actiongate dev stand-in does not know this command" >&2
            exit 1
            """;

    /** Read-only: exit 0 only when effects.log holds a line for this action's idempotency key. */
    static final String STATUS = """
            #!/bin/sh
            # actiongate dev status command: proves an effect of the stand-ins by its idempotency key, reads only
            [ -f "$DEV_CLI_STATE/effects.log" ] || exit 1
            tab=$(printf '\\t')
            grep -qF "$tab$ACTIONGATE_IDEMPOTENCY_KEY$tab" "$DEV_CLI_STATE/effects.log"
            """;

    private DevCliTools() {
    }

    /** Writes the stand-ins into {@code dir} (created if needed) and returns the {@code connectors.cli.*} defaults. */
    public static Map<String, String> install(Path dir) throws IOException {
        Path home = Files.createDirectories(dir).toAbsolutePath().normalize();
        Path bin = Files.createDirectories(home.resolve("bin"));
        write(bin.resolve("kubectl"), KUBECTL);
        write(bin.resolve("gh"), GH);
        write(bin.resolve("status"), STATUS);
        return settings(home);
    }

    static Map<String, String> settings(Path home) {
        Map<String, String> d = new HashMap<>();
        d.put("connectors.cli.enabled", "true");
        d.put("connectors.cli.working-dir", home.toString());
        d.put("connectors.cli.timeout-ms", "10000");
        for (String tool : List.of("kubectl", "gh")) {
            String prefix = "connectors.cli." + tool + ".";
            d.put(prefix + "path", home.resolve("bin").resolve(tool).toString());
            d.put(prefix + "status-path", home.resolve("bin").resolve("status").toString());
            d.put(prefix + "env.DEV_CLI_STATE", home.toString());
            d.put(prefix + "env.PATH", "/usr/local/bin:/usr/bin:/bin");
        }
        return d;
    }

    private static void write(Path file, String script) throws IOException {
        Files.writeString(file, script, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
    }
}
