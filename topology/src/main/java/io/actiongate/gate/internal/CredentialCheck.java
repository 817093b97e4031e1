package io.actiongate.gate.internal;

import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Finds credential material in a proposal's text. The answer names the detector and where it fired, never the
 * matched text. Implemented over {@code io.actiongate.scan.CredentialScanner}.
 */
@FunctionalInterface
public interface CredentialCheck {

    /** Which detector fired and where, or empty when neither the input nor the summary holds credentials. */
    Optional<String> find(String inputJson, String summary);

    /**
     * The same check, given the gate's strict parse of {@code inputJson} (no duplicate member names), so that an
     * implementation need not parse it again. By default the tree is not used.
     */
    default Optional<String> find(String inputJson, JsonNode parsedInput, String summary) {
        return find(inputJson, summary);
    }
}
