package io.actiongate.cli.commands;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.actiongate.json.JsonErrors;

/** Reads one JSON document from a file, or from standard input for {@code -}. */
final class JsonInput {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private JsonInput() {
    }

    static JsonNode read(Path file) throws IOException {
        try {
            if (file.toString().equals("-")) {
                InputStream in = System.in;
                return nonEmpty(MAPPER.readTree(in), "standard input");
            }
            if (!Files.exists(file)) {
                throw new CommandFailure("no such file: " + file);
            }
            return nonEmpty(MAPPER.readTree(file.toFile()), file.toString());
        } catch (JsonProcessingException e) {
            throw invalid(file.toString(), e);
        }
    }

    static JsonNode parse(String text, String what) {
        try {
            return nonEmpty(MAPPER.readTree(text), what);
        } catch (JsonProcessingException e) {
            throw invalid(what, e);
        }
    }

    /**
     * The failure said by kind and position, without Jackson's exception as the cause: its message (printed with
     * {@code --verbose}) quotes the input, and the input may hold a credential.
     */
    private static CommandFailure invalid(String what, JsonProcessingException e) {
        return new CommandFailure(what + " is not valid JSON (" + JsonErrors.describe(e) + ")");
    }

    private static JsonNode nonEmpty(JsonNode node, String what) {
        if (node == null || node.isMissingNode()) {
            throw new CommandFailure(what + " holds no JSON");
        }
        return node;
    }
}
