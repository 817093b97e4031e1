package io.actiongate.policy;

import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;

import io.actiongate.connector.spi.Classification;

/**
 * The provider's own classification of an action (docs/contract.md section 4, "Classification"), as the policy
 * checks ask it; the gate answers from its connectors' classifiers ({@code io.actiongate.gate.OperationClassifiers}).
 * Called on the stream threads: implementations are thread-safe, pure and quick (no I/O).
 */
public interface ProviderClassifier {

    /**
     * The provider's answer: the kind (the connector SPI's own {@link Classification.Kind}, the one kind there is), whether the input passes the provider's validation, and whether the classifier
     * looked at this input (so that its {@code READ} is trusted read evidence by itself, {@link TrustedRead#evidence}).
     */
    record Answer(Classification.Kind kind, boolean valid, boolean perInput) {
    }

    /**
     * The answer for {@code action}'s provider, operation and input, or empty when no connector is configured for the
     * provider. May throw: the checks then refuse the action. {@code parsedInput} is the gate's strict parse of the
     * action's input when it has one (at admission), or null: the classifier then reads the input text.
     */
    Optional<Answer> classify(CheckedAction action, JsonNode parsedInput);
}
