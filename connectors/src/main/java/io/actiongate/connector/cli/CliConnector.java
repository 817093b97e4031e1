package io.actiongate.connector.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.actiongate.connector.internal.Json;
import io.actiongate.secrets.Redaction;
import io.actiongate.connector.spi.Classification;
import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.DispatchRequest;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.ErrorCodes;
import io.actiongate.connector.spi.LookupRequest;
import io.actiongate.connector.spi.LookupResult;
import io.actiongate.connector.spi.OperationClassifier;
import io.actiongate.connector.spi.Validation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Runs approved {@code kubectl} and {@code gh} vectors: classified by {@link CliClassifier}, executed once with
 * {@link CommandRunner} from the operator's configured binary (argv only, no shell), with the operator's environment
 * allow-list, working directory, timeout and output bound. Outcome mapping:
 * <pre>
 * exit 0                                         SUCCEEDED (http_status = 0)
 * binary not configured, missing, not executable,
 * working directory missing, start() failed      NOT_DISPATCHED, dispatched=false (EXECUTABLE_UNAVAILABLE)
 * exit 1..128                                    FAILED (COMMAND_FAILED, http_status = the exit code)
 * exit 129..255 (killed by a signal)             UNKNOWN (COMMAND_KILLED)
 * timeout, interrupted                           UNKNOWN (COMMAND_TIMEOUT / COMMAND_KILLED); the process is killed
 * invalid, refused or unsupported vector         FAILED, dispatched=false (SCHEMA_INVALID / OPERATION_REFUSED)
 * </pre>
 * The command's output is bounded, never logged and never copied into a result except as a short redacted excerpt in
 * a FAILED detail.
 */
public final class CliConnector implements Connector {

    private static final Logger LOG = LoggerFactory.getLogger(CliConnector.class);

    /** Exit statuses above this are how the JDK reports "killed by signal (status - 128)". */
    static final int SIGNAL_BASE = 128;
    static final int MAX_KEY_CHARS = 256;

    private final CliClassifier classifier = new CliClassifier();
    private final CliSettings settings;
    private final Collection<String> secrets;

    CliConnector(CliSettings settings) {
        this.settings = settings;
        this.secrets = List.copyOf(settings.secrets());
    }

    @Override
    public String provider() {
        return CliConnectorFactory.PROVIDER;
    }

    @Override
    public OperationClassifier classifier() {
        return classifier;
    }

    @Override
    public DispatchResult dispatch(DispatchRequest request) {
        DispatchResult result = execute(request);
        LOG.info("cli dispatch action={} attempt={} tool={} status={} exit={} error={}", request.actionKey(),
                request.attempt(), tool(request.operation()), result.status(), result.httpStatus(), result.errorCode());
        return result;
    }

    private DispatchResult execute(DispatchRequest request) {
        // parsed once for the validation, the classification and the vector it runs
        JsonNode input = Json.object(request.inputJson()).orElse(null);
        Validation validation = classifier.validate(request.operation(), request.inputJson(), input);
        if (!validation.valid()) {
            return DispatchResult.refusedBeforeSending(ErrorCodes.SCHEMA_INVALID, validation.violation());
        }
        Classification classification = classifier.classify(request.operation(), request.inputJson(), input);
        if (!classification.isAllowed()) {
            return DispatchResult.refusedBeforeSending(ErrorCodes.OPERATION_REFUSED,
                    "vector classified " + classification.kind() + "; never executed");
        }
        if (!request.attachments().isEmpty()) {
            return DispatchResult.refusedBeforeSending(ErrorCodes.SCHEMA_INVALID, "cli takes no attachments");
        }
        if (!plainKey(request.idempotencyKey())) {
            return DispatchResult.refusedBeforeSending(ErrorCodes.SCHEMA_INVALID,
                    "idempotency key missing, longer than " + MAX_KEY_CHARS + " or holding control characters");
        }
        CliSettings.Tool tool = settings.tool(request.operation());
        Optional<String> unavailable = unavailable(request.operation(), tool.path());
        if (unavailable.isPresent()) {
            return DispatchResult.notDispatched(ErrorCodes.EXECUTABLE_UNAVAILABLE, unavailable.get());
        }
        List<String> argv = CliClassifier.argv(request.operation(), request.inputJson(), input).orElseThrow();
        List<String> command = new ArrayList<>();
        command.add(tool.path().orElseThrow().toString());
        command.addAll(argv.subList(1, argv.size()));
        CommandRunner.Run run = CommandRunner.run(command, environment(tool, request.idempotencyKey(),
                request.actionKey()), settings.workingDir(), settings.timeout(), settings.maxOutputBytes());
        return outcome(run);
    }

    DispatchResult outcome(CommandRunner.Run run) {
        return switch (run.ending()) {
            case NOT_STARTED -> DispatchResult.notDispatched(ErrorCodes.EXECUTABLE_UNAVAILABLE,
                    "the binary could not be started (" + run.startFailure() + "); nothing ran");
            case TIMED_OUT -> DispatchResult.unknown(null, ErrorCodes.COMMAND_TIMEOUT, "still running after "
                    + settings.timeout().toMillis() + " ms; killed, it may have acted");
            case INTERRUPTED -> DispatchResult.unknown(null, ErrorCodes.COMMAND_KILLED,
                    "executor stopped while the command ran; killed, it may have acted");
            case EXITED -> exited(run);
        };
    }

    private DispatchResult exited(CommandRunner.Run run) {
        int exit = run.exitCode();
        if (exit == 0) {
            return DispatchResult.succeeded(0, null);
        }
        if (exit < 0 || exit > SIGNAL_BASE) {
            return DispatchResult.unknown(exit < 0 ? null : exit, ErrorCodes.COMMAND_KILLED,
                    "terminated" + (exit > SIGNAL_BASE ? " by signal " + (exit - SIGNAL_BASE) : "")
                            + " after it started; it may have acted");
        }
        String excerpt = Redaction.snippet(run.output(), Redaction.DEFAULT_SNIPPET, secrets);
        return DispatchResult.failed(exit, ErrorCodes.COMMAND_FAILED,
                "exit code " + exit + (excerpt.isEmpty() ? "" : ": " + excerpt));
    }

    /**
     * {@code STILL_UNKNOWN} unless the tool's configured read-only status command exits 0 for this action: then
     * {@code EFFECT_CONFIRMED}. Nothing else can prove anything about a command's effect, so there is no
     * {@code NO_EFFECT}: an owner's {@code RESOLVE_*} decision settles what the status command cannot.
     */
    @Override
    public LookupResult lookup(LookupRequest request) {
        LookupResult result = check(request);
        LOG.info("cli lookup action={}/{} tool={} verdict={}", request.taskId(), request.toolCallId(),
                tool(request.operation()), result.verdict());
        return result;
    }

    private LookupResult check(LookupRequest request) {
        if (request.operation() == null || !CliClassifier.OPERATIONS.contains(request.operation())) {
            return LookupResult.stillUnknown("not a cli operation");
        }
        CliSettings.Tool tool = settings.tool(request.operation());
        if (tool.statusPath().isEmpty()) {
            return LookupResult.stillUnknown("no status command configured for " + request.operation()
                    + "; a command's effect cannot be looked up");
        }
        if (!plainKey(request.idempotencyKey())) {
            return LookupResult.stillUnknown("no usable idempotency key to look up");
        }
        if (unavailable(request.operation() + " status command", tool.statusPath()).isPresent()) {
            return LookupResult.stillUnknown("the status command is missing or not executable");
        }
        List<String> command = new ArrayList<>();
        command.add(tool.statusPath().orElseThrow().toString());
        CliClassifier.argv(request.operation(), request.inputJson())
                .ifPresent(argv -> command.addAll(argv.subList(1, argv.size())));
        CommandRunner.Run run = CommandRunner.run(command, environment(tool, request.idempotencyKey(),
                request.actionKey()), settings.workingDir(), settings.timeout(),
                settings.maxOutputBytes());
        if (run.ending() == CommandRunner.Ending.EXITED && run.exitCode() == 0) {
            return LookupResult.confirmed("the configured status command confirmed the effect", null);
        }
        return LookupResult.stillUnknown(run.ending() == CommandRunner.Ending.EXITED
                ? "the status command did not confirm the effect (exit " + run.exitCode() + ")"
                : "the status command did not finish (" + run.ending() + ")");
    }

    /** Why {@code path} cannot be run, if it cannot; checked before anything is started. */
    private Optional<String> unavailable(String what, Optional<Path> path) {
        if (path.isEmpty()) {
            return Optional.of("no path configured for " + what + "; nothing ran");
        }
        if (!Files.isRegularFile(path.get()) || !Files.isExecutable(path.get())) {
            return Optional.of("the configured binary for " + what + " is missing or not executable; nothing ran");
        }
        if (!Files.isDirectory(settings.workingDir())) {
            return Optional.of("the working directory does not exist; nothing ran");
        }
        return Optional.empty();
    }

    /** The allow-listed variables of this process, then the tool's fixed and secret ones, then the action's. */
    Map<String, String> environment(CliSettings.Tool tool, String idempotencyKey, String actionKey) {
        Map<String, String> env = new TreeMap<>();
        for (String name : settings.envAllow()) {
            String value = System.getenv(name);
            if (value != null) {
                env.put(name, value);
            }
        }
        env.putAll(tool.env());
        env.putAll(tool.secretEnv());
        env.put(CliSettings.KEY_VARIABLE, idempotencyKey);
        env.put(CliSettings.ACTION_VARIABLE, actionKey);
        return env;
    }

    /** The operation as it may appear in a log line: one of the two tools, or "other". */
    private static String tool(String operation) {
        return operation != null && CliClassifier.OPERATIONS.contains(operation) ? operation : "other";
    }

    private static boolean plainKey(String key) {
        return key != null && !key.isEmpty() && key.length() <= MAX_KEY_CHARS
                && key.chars().allMatch(c -> c >= 0x20 && c != 0x7f);
    }
}
