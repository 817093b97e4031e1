package io.actiongate.connector.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.actiongate.connector.internal.Json;
import io.actiongate.secrets.Redaction;
import io.actiongate.connector.spi.Classification;
import io.actiongate.connector.spi.OperationClassifier;
import io.actiongate.connector.spi.Validation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The CLI classifier for {@code kubectl} and {@code gh}: operation {@code kubectl} or {@code gh}, input
 * {@code {"argv": ["kubectl", "get", "pods"]}}. It proves an argument vector read-only, an effect, or rejects it,
 * per input ({@link #classifiesPerInput()} is true), from the vector alone: no setting, no credential, no process.
 */
public final class CliClassifier implements OperationClassifier {

    private static final Logger LOG = LoggerFactory.getLogger(CliClassifier.class);

    static final Set<String> OPERATIONS = Set.of("kubectl", "gh");
    static final int MAX_ARGS = 64;
    static final int MAX_ARG_CHARS = 1024;
    /** Inputs longer than any valid vector (64 arguments of 1024 characters, JSON-escaped) are not even parsed. */
    static final int MAX_INPUT_CHARS = MAX_ARGS * (MAX_ARG_CHARS * 6 + 3) + 16;

    @Override
    public String provider() {
        return CliConnectorFactory.PROVIDER;
    }

    @Override
    public boolean classifiesPerInput() {
        return true;
    }

    @Override
    public Classification classify(String operation, String inputJson) {
        return classify(operation, inputJson, null);
    }

    @Override
    public Classification classify(String operation, String inputJson, JsonNode parsedInput) {
        try {
            Optional<List<String>> argv = argv(operation, inputJson, parsedInput);
            if (argv.isEmpty()) {
                return Classification.unsupported("input is not {\"argv\": [\"" + (operation != null
                        && OPERATIONS.contains(operation)
                        ? operation : "kubectl|gh") + "\", ...]} within bounds");
            }
            List<String> args = argv.get().subList(1, argv.get().size());
            return "kubectl".equals(operation) ? KubectlClassifier.classify(args) : GhClassifier.classify(args);
        } catch (RuntimeException e) {
            // fail closed: a vector the tables cannot read is never READ or EFFECT
            LOG.warn("cli classifier could not read a vector ({}); treated as unsupported",
                    e.getClass().getSimpleName());
            return Classification.unsupported("vector could not be classified");
        }
    }

    @Override
    public Validation validate(String operation, String inputJson) {
        return validate(operation, inputJson, null);
    }

    @Override
    public Validation validate(String operation, String inputJson, JsonNode parsedInput) {
        if (operation == null || !OPERATIONS.contains(operation)) {
            return Validation.invalid("cli supports only kubectl and gh");
        }
        return argv(operation, inputJson, parsedInput).isPresent() ? Validation.ok()
                : Validation.invalid("input must be {\"argv\": [\"" + operation + "\", ...]} with at most "
                        + MAX_ARGS + " arguments of at most " + MAX_ARG_CHARS
                        + " characters and no control characters but tab and newline");
    }

    /** The argument vector, when the input is exactly {@code {"argv": [operation, ...]}} within bounds. */
    static Optional<List<String>> argv(String operation, String inputJson) {
        return argv(operation, inputJson, null);
    }

    /** {@link #argv(String, String)}, reading {@code parsedInput} (the parse of {@code inputJson}) when not null. */
    static Optional<List<String>> argv(String operation, String inputJson, JsonNode parsedInput) {
        if (operation == null || !OPERATIONS.contains(operation) || inputJson == null
                || inputJson.length() > MAX_INPUT_CHARS) {
            return Optional.empty();
        }
        Optional<ObjectNode> input = Json.object(inputJson, parsedInput);
        if (input.isEmpty() || Json.unexpectedField(input.get(), Set.of("argv")).isPresent()) {
            return Optional.empty();
        }
        JsonNode array = input.get().get("argv");
        if (array == null || !array.isArray() || array.size() < 1 || array.size() > MAX_ARGS) {
            return Optional.empty();
        }
        List<String> args = new ArrayList<>();
        for (JsonNode node : array) {
            if (!node.isTextual() || node.asText().length() > MAX_ARG_CHARS
                    || node.asText().chars().anyMatch(c -> (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)) {
                return Optional.empty();
            }
            args.add(node.asText());
        }
        return args.get(0).equals(operation) ? Optional.of(List.copyOf(args)) : Optional.empty();
    }

    /** Whether any argument before {@code --} spells one of {@code flags} (alone or as {@code flag=value}). */
    static boolean usesFlag(List<String> args, Collection<String> flags) {
        for (String arg : args) {
            if (arg.equals("--")) {
                return false;
            }
            int eq = arg.indexOf('=');
            if (flags.contains(eq > 0 ? arg.substring(0, eq) : arg)) {
                return true;
            }
        }
        return false;
    }

    static String shortened(String text) {
        return Redaction.snippet(text, 40, List.of());
    }
}
