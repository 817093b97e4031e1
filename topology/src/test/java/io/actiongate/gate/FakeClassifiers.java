package io.actiongate.gate;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

import io.actiongate.connector.spi.Classification;
import io.actiongate.connector.spi.Validation;

/**
 * Test seam: the providers' classifiers, scripted per provider and operation and changeable between records. By
 * default {@code webhook} knows {@code send_email} (EFFECT) and {@code lookup} (READ) and no other operation, as a
 * webhook connector configured that way would; no other provider has a connector.
 */
final class FakeClassifiers implements OperationClassifiers {

    private final Map<String, Classification> classes = new HashMap<>();
    private final Set<String> providers = new HashSet<>();
    private final Set<String> perInput = new HashSet<>();
    private final Map<String, String> violations = new HashMap<>();
    private final Set<String> throwing = new HashSet<>();
    int calls;
    /** The parsed input the gate handed to each classify and validate, in order (null: it handed none). */
    final List<JsonNode> parsedInputs = new ArrayList<>();

    static FakeClassifiers webhook() {
        FakeClassifiers f = new FakeClassifiers();
        f.set(GateDriver.PROVIDER, GateDriver.SEND, Classification.effect("configured in operations"));
        f.set(GateDriver.PROVIDER, GateDriver.LOOKUP, Classification.read("configured in read-operations"));
        return f;
    }

    FakeClassifiers set(String provider, String operation, Classification c) {
        providers.add(provider);
        classes.put(provider + "/" + operation, c);
        return this;
    }

    FakeClassifiers perInput(String provider) {
        perInput.add(provider);
        return this;
    }

    FakeClassifiers invalid(String provider, String operation, String violation) {
        violations.put(provider + "/" + operation, violation);
        return this;
    }

    FakeClassifiers throwing(String provider, boolean on) {
        if (on) {
            throwing.add(provider);
        } else {
            throwing.remove(provider);
        }
        return this;
    }

    FakeClassifiers remove(String provider) {
        providers.remove(provider);
        return this;
    }

    @Override
    public Optional<Classification> classify(String provider, String operation, String inputJson) {
        calls++;
        if (throwing.contains(provider)) {
            throw new IllegalStateException("classifier bug quoting " + inputJson);
        }
        if (!providers.contains(provider)) {
            return Optional.empty();
        }
        return Optional.of(classes.getOrDefault(provider + "/" + operation,
                Classification.unsupported("not configured")));
    }

    @Override
    public Optional<Validation> validate(String provider, String operation, String inputJson) {
        if (!providers.contains(provider)) {
            return Optional.empty();
        }
        String violation = violations.get(provider + "/" + operation);
        return Optional.of(violation == null ? Validation.ok() : Validation.invalid(violation));
    }

    @Override
    public Optional<Classification> classify(String provider, String operation, String inputJson,
                                             JsonNode parsedInput) {
        parsedInputs.add(parsedInput);
        return classify(provider, operation, inputJson);
    }

    @Override
    public Optional<Validation> validate(String provider, String operation, String inputJson, JsonNode parsedInput) {
        parsedInputs.add(parsedInput);
        return validate(provider, operation, inputJson);
    }

    @Override
    public boolean classifiesPerInput(String provider) {
        return providers.contains(provider) && perInput.contains(provider);
    }
}
