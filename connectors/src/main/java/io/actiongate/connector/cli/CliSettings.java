package io.actiongate.connector.cli;

import io.actiongate.connector.internal.Settings;
import io.actiongate.connector.spi.ConnectorContext;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * {@code connectors.cli.*}: how approved vectors are executed. Nothing here comes from a proposal: the binary, its
 * environment and working directory are the operator's. Secret environment values ({@code <tool>.secret-env.NAME},
 * an {@code env:}/{@code file:} reference) are resolved only when {@code withSecrets} is set, i.e. for the executor
 * and reconciler, never for the gate's classifier.
 */
record CliSettings(Map<String, Tool> tools, Set<String> envAllow, Path workingDir, Duration timeout,
                   int maxOutputBytes) {

    static final String ENABLED = "enabled";
    static final String ENV_ALLOW = "env-allow";
    static final String WORKING_DIR = "working-dir";
    static final String TIMEOUT_MS = "timeout-ms";
    static final String MAX_OUTPUT_BYTES = "max-output-bytes";
    static final String PATH = "path";
    static final String STATUS_PATH = "status-path";
    static final String ENV = "env.";
    static final String SECRET_ENV = "secret-env.";

    static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");
    /** Set by the connector itself on every run; an operator setting cannot replace them. */
    static final String KEY_VARIABLE = "ACTIONGATE_IDEMPOTENCY_KEY";
    static final String ACTION_VARIABLE = "ACTIONGATE_ACTION";

    /**
     * One tool: the absolute path of its binary (absent: it is classified but never run), its fixed environment,
     * its resolved secret environment (empty unless built with secrets), and an optional read-only status command.
     */
    record Tool(Optional<Path> path, Map<String, String> env, Map<String, String> secretEnv,
                Optional<Path> statusPath) {

        @Override
        public String toString() {
            return "Tool[path=" + path + ", env=" + env.keySet() + ", secretEnv=" + secretEnv.keySet()
                    + ", statusPath=" + statusPath + "]";
        }
    }

    static CliSettings from(ConnectorContext context, boolean withSecrets) {
        Map<String, Map<String, String>> byTool = new TreeMap<>();
        for (String key : context.settings().keySet()) {
            int dot = key.indexOf('.');
            if (dot < 0) {
                if (!Set.of(ENABLED, ENV_ALLOW, WORKING_DIR, TIMEOUT_MS, MAX_OUTPUT_BYTES).contains(key)) {
                    throw new IllegalArgumentException("unknown connector setting '" + key + "'");
                }
                continue;
            }
            String tool = key.substring(0, dot);
            if (!CliClassifier.OPERATIONS.contains(tool)) {
                throw new IllegalArgumentException("connector setting '" + key
                        + "': the cli connector runs only kubectl and gh");
            }
            byTool.computeIfAbsent(tool, t -> new TreeMap<>()).put(key.substring(dot + 1),
                    context.settings().get(key));
        }
        Map<String, Tool> tools = new TreeMap<>();
        for (String tool : CliClassifier.OPERATIONS) {
            tools.put(tool, tool(context, tool, byTool.getOrDefault(tool, Map.of()), withSecrets));
        }
        Set<String> allow = Settings.list(context, ENV_ALLOW);
        for (String name : allow) {
            if (!ENV_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("connector setting '" + ENV_ALLOW + "' holds a malformed name");
            }
        }
        Path dir = context.setting(WORKING_DIR).map(String::strip).filter(s -> !s.isEmpty())
                .map(s -> absolute(WORKING_DIR, s)).orElse(Path.of(System.getProperty("java.io.tmpdir")));
        long maxOutput = Settings.longValue(context, MAX_OUTPUT_BYTES, 64 * 1024);
        if (maxOutput < 0 || maxOutput > 16 * 1024 * 1024) {
            throw new IllegalArgumentException("connector setting '" + MAX_OUTPUT_BYTES + "' must be 0..16777216");
        }
        return new CliSettings(Map.copyOf(tools), allow, dir, Settings.millis(context, TIMEOUT_MS, 30_000),
                (int) maxOutput);
    }

    private static Tool tool(ConnectorContext context, String tool, Map<String, String> settings,
                             boolean withSecrets) {
        Map<String, String> env = new TreeMap<>();
        Map<String, String> secretEnv = new TreeMap<>();
        Optional<Path> path = Optional.empty();
        Optional<Path> status = Optional.empty();
        for (Map.Entry<String, String> e : settings.entrySet()) {
            String key = e.getKey();
            String name = tool + "." + key;
            String value = e.getValue() == null ? "" : e.getValue().strip();
            if (key.equals(PATH)) {
                path = value.isEmpty() ? Optional.empty() : Optional.of(absolute(name, value));
            } else if (key.equals(STATUS_PATH)) {
                status = value.isEmpty() ? Optional.empty() : Optional.of(absolute(name, value));
            } else if (key.startsWith(ENV)) {
                env.put(variable(name, key.substring(ENV.length())), plain(name, e.getValue()));
            } else if (key.startsWith(SECRET_ENV)) {
                String variable = variable(name, key.substring(SECRET_ENV.length()));
                if (value.isEmpty()) {
                    throw new IllegalArgumentException("connector setting '" + name + "' is empty");
                }
                if (withSecrets) {
                    secretEnv.put(variable, plain(name, context.secret(value).orElseThrow()));
                }
            } else {
                throw new IllegalArgumentException("unknown connector setting '" + name + "'");
            }
        }
        return new Tool(path, Map.copyOf(env), Map.copyOf(secretEnv), status);
    }

    private static String variable(String setting, String name) {
        if (!ENV_NAME.matcher(name).matches() || name.equals(KEY_VARIABLE) || name.equals(ACTION_VARIABLE)) {
            throw new IllegalArgumentException("connector setting '" + setting + "' does not name a settable "
                    + "environment variable");
        }
        return name;
    }

    private static String plain(String setting, String value) {
        if (value == null || value.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("connector setting '" + setting + "' holds a NUL character");
        }
        return value;
    }

    private static Path absolute(String setting, String value) {
        Path path;
        try {
            path = Path.of(value);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("connector setting '" + setting + "' is not a path", e);
        }
        if (!path.isAbsolute() || !path.normalize().equals(path)) {
            throw new IllegalArgumentException("connector setting '" + setting
                    + "' must be an absolute, normalised path");
        }
        return path;
    }

    Tool tool(String name) {
        return tools.get(name);
    }

    /** Every resolved secret value, for redaction. */
    Collection<String> secrets() {
        return tools.values().stream().flatMap(t -> t.secretEnv().values().stream()).toList();
    }

    @Override
    public String toString() {
        return "CliSettings[tools=" + tools + ", envAllow=" + envAllow + ", workingDir=" + workingDir
                + ", timeout=" + timeout + ", maxOutputBytes=" + maxOutputBytes + "]";
    }
}
