package io.actiongate.gate;

import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;

import io.actiongate.connector.spi.Classification;
import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.ConnectorRegistry;
import io.actiongate.connector.spi.OperationClassifier;
import io.actiongate.connector.spi.Validation;
import io.actiongate.policy.CheckedAction;
import io.actiongate.policy.ProviderClassifier;

/**
 * The gate's view of the providers' own classification logic (docs/contract.md section 4, "Classification"): at
 * admission and again right before each reservation the gate asks the proposal's provider to classify and validate
 * the operation and input. Empty means no connector is configured for the provider, which the gate treats as
 * {@code UNKNOWN_PROVIDER_METHOD} (fail closed); so does an exception thrown by an implementation.
 *
 * <p>This is how the policy checks ({@code io.actiongate.policy.PolicyChecks}) ask the provider: as a
 * {@link ProviderClassifier}, handing the admission's parsed input on, so no connector parses it again.
 *
 * <p>Implementations are called on the stream threads: they must be thread-safe, pure and quick (no I/O).
 */
public interface OperationClassifiers extends ProviderClassifier {

    /** No connector for any provider: every proposal is {@code UNKNOWN_PROVIDER_METHOD}. */
    OperationClassifiers NONE = new OperationClassifiers() {
        @Override
        public Optional<Classification> classify(String provider, String operation, String inputJson) {
            return Optional.empty();
        }

        @Override
        public Optional<Validation> validate(String provider, String operation, String inputJson) {
            return Optional.empty();
        }

        @Override
        public boolean classifiesPerInput(String provider) {
            return false;
        }
    };

    /** The provider's classifier's {@code classify}, or empty when no connector is configured for it. */
    Optional<Classification> classify(String provider, String operation, String inputJson);

    /** The provider's classifier's {@code validate}, or empty when no connector is configured for it. */
    Optional<Validation> validate(String provider, String operation, String inputJson);

    /**
     * {@link #classify(String, String, String)} given the gate's strict parse of {@code inputJson} (or null), which
     * the connector then reads instead of parsing the text again. By default the tree is not used.
     */
    default Optional<Classification> classify(String provider, String operation, String inputJson,
                                              JsonNode parsedInput) {
        return classify(provider, operation, inputJson);
    }

    /** {@link #validate(String, String, String)} given the gate's strict parse of {@code inputJson} (or null). */
    default Optional<Validation> validate(String provider, String operation, String inputJson, JsonNode parsedInput) {
        return validate(provider, operation, inputJson);
    }

    /**
     * The provider's classification and validation of {@code action} for the policy checks: validated only when a
     * connector answered, and both given the same parsed input.
     */
    @Override
    default Optional<Answer> classify(CheckedAction action, JsonNode parsedInput) {
        String provider = action.provider();
        Optional<Classification> classified = classify(provider, action.operation(), action.inputJson(), parsedInput);
        if (classified.isEmpty()) {
            return Optional.empty();
        }
        Optional<Validation> validated = validate(provider, action.operation(), action.inputJson(), parsedInput);
        if (validated.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Answer(classified.get().kind(), validated.get().valid(),
                classifiesPerInput(provider)));
    }

    /**
     * Whether the provider's classifier decides per input, so that its {@code READ} is trusted read evidence on its
     * own; otherwise a {@code READ} counts only together with the descriptor's {@code read_only_hint=true}.
     */
    boolean classifiesPerInput(String provider);

    /**
     * The given classifiers by provider name (the credential-free ones from {@link ConnectorRegistry#classifiers}, or
     * full connectors' {@link Connector#classifier()}); each says itself whether it classifies per input.
     */
    static OperationClassifiers of(Map<String, ? extends OperationClassifier> classifiers) {
        Map<String, OperationClassifier> byProvider = Map.copyOf(classifiers);
        return new OperationClassifiers() {
            @Override
            public Optional<Classification> classify(String provider, String operation, String inputJson) {
                return classify(provider, operation, inputJson, null);
            }

            @Override
            public Optional<Classification> classify(String provider, String operation, String inputJson,
                                                     JsonNode parsedInput) {
                OperationClassifier c = byProvider.get(provider);
                return c == null ? Optional.empty() : Optional.of(c.classify(operation, inputJson, parsedInput));
            }

            @Override
            public Optional<Validation> validate(String provider, String operation, String inputJson) {
                return validate(provider, operation, inputJson, null);
            }

            @Override
            public Optional<Validation> validate(String provider, String operation, String inputJson,
                                                 JsonNode parsedInput) {
                OperationClassifier c = byProvider.get(provider);
                return c == null ? Optional.empty() : Optional.of(c.validate(operation, inputJson, parsedInput));
            }

            @Override
            public boolean classifiesPerInput(String provider) {
                OperationClassifier c = byProvider.get(provider);
                return c != null && c.classifiesPerInput();
            }
        };
    }

    /** The classifiers of the registry's connectors (looked up per call); each says whether it reads each input. */
    static OperationClassifiers of(ConnectorRegistry registry) {
        return new OperationClassifiers() {
            @Override
            public Optional<Classification> classify(String provider, String operation, String inputJson) {
                return classify(provider, operation, inputJson, null);
            }

            @Override
            public Optional<Classification> classify(String provider, String operation, String inputJson,
                                                     JsonNode parsedInput) {
                return registry.find(provider).map(c -> c.classifier().classify(operation, inputJson, parsedInput));
            }

            @Override
            public Optional<Validation> validate(String provider, String operation, String inputJson) {
                return validate(provider, operation, inputJson, null);
            }

            @Override
            public Optional<Validation> validate(String provider, String operation, String inputJson,
                                                 JsonNode parsedInput) {
                return registry.find(provider).map(c -> c.classifier().validate(operation, inputJson, parsedInput));
            }

            @Override
            public boolean classifiesPerInput(String provider) {
                return registry.find(provider).map(c -> c.classifier().classifiesPerInput()).orElse(false);
            }
        };
    }
}
