package io.actiongate.gate.internal;

import java.util.Optional;

/**
 * Finds credential material in a proposal's text. The answer names the detector and where it fired, never the
 * matched text. Implemented over {@code io.actiongate.scan.CredentialScanner}.
 */
@FunctionalInterface
public interface CredentialCheck {

    /** Which detector fired and where, or empty when neither the input nor the summary holds credentials. */
    Optional<String> find(String inputJson, String summary);
}
