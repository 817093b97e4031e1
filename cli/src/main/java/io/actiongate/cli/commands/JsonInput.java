package io.actiongate.cli.commands;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

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
            String where = e.getLocation() == null ? ""
                    : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")";
            throw new CommandFailure(file + " is not valid JSON" + where, e);
        }
    }

    static JsonNode parse(String text, String what) {
        try {
            return nonEmpty(MAPPER.readTree(text), what);
        } catch (JsonProcessingException e) {
            throw new CommandFailure(what + " is not valid JSON", e);
        }
    }

    private static JsonNode nonEmpty(JsonNode node, String what) {
        if (node == null || node.isMissingNode()) {
            throw new CommandFailure(what + " holds no JSON");
        }
        return node;
    }
}
