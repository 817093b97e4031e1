package io.actiongate.gate;

import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;

import io.actiongate.gate.internal.CredentialCheck;
import io.actiongate.scan.CredentialScanner;

/**
 * The gate's credential check over {@link CredentialScanner}: the input JSON first, then the summary. The answer
 * names the detector and the field (input_json or summary) only: a JSON pointer would repeat member names, which
 * are input text.
 */
public final class ScannerCredentialCheck implements CredentialCheck {

    private final CredentialScanner scanner;

    public ScannerCredentialCheck(CredentialScanner scanner) {
        this.scanner = scanner;
    }

    public static ScannerCredentialCheck defaults() {
        return new ScannerCredentialCheck(CredentialScanner.defaults());
    }

    @Override
    public Optional<String> find(String inputJson, String summary) {
        return find(inputJson, null, summary);
    }

    /** Walks {@code parsedInput} (when given) instead of parsing {@code inputJson} a second time. */
    @Override
    public Optional<String> find(String inputJson, JsonNode parsedInput, String summary) {
        return scanner.scanJson(inputJson, parsedInput).map(f -> "detector " + f.detector() + " fired in input_json")
                .or(() -> scanner.scan(summary).map(f -> "detector " + f.detector() + " fired in summary"));
    }
}
