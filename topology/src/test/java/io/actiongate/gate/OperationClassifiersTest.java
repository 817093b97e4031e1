package io.actiongate.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.actiongate.connector.spi.Classification;
import io.actiongate.connector.spi.ConnectorRegistry;

/** The adapter of the gate's classification seam over the connectors. */
class OperationClassifiersTest {

    private static final String GET_PODS = "{\"argv\":[\"kubectl\",\"get\",\"pods\"]}";

    private final ConnectorRegistry registry = ConnectorRegistry.load(Map.of(
            "connectors.cli.enabled", "true",
            "connectors.webhook.base-url", "http://127.0.0.1:9",
            "connectors.webhook.operations", "post_update",
            "connectors.webhook.read-operations", "get_notes"));

    @Test
    void shouldAskTheProvidersOwnConnector() {
        OperationClassifiers ops = OperationClassifiers.of(registry);
        assertThat(ops.classify("cli", "kubectl", GET_PODS)).hasValueSatisfying(
                c -> assertThat(c.kind()).isEqualTo(Classification.Kind.READ));
        assertThat(ops.classify("webhook", "get_notes", "{}")).hasValueSatisfying(
                c -> assertThat(c.kind()).isEqualTo(Classification.Kind.READ));
        assertThat(ops.classify("webhook", "post_update", "{}")).hasValueSatisfying(
                c -> assertThat(c.kind()).isEqualTo(Classification.Kind.EFFECT));
        assertThat(ops.validate("webhook", "post_update", "[1]")).hasValueSatisfying(
                v -> assertThat(v.valid()).isFalse());
        assertThat(ops.validate("cli", "kubectl", GET_PODS)).hasValueSatisfying(v -> assertThat(v.valid()).isTrue());
    }

    @Test
    void shouldBeEmptyForAProviderWithoutConnector() {
        OperationClassifiers ops = OperationClassifiers.of(registry);
        assertThat(ops.classify("smtp", "send_email", "{}")).isEmpty();
        assertThat(ops.validate("smtp", "send_email", "{}")).isEmpty();
        assertThat(ops.classifiesPerInput("smtp")).isFalse();
        assertThat(OperationClassifiers.NONE.classify("cli", "kubectl", GET_PODS)).isEmpty();
    }

    @Test
    void shouldTrustOnlyTheCliClassifierPerInput() {
        OperationClassifiers ops = OperationClassifiers.of(registry);
        assertThat(ops.classifiesPerInput("cli")).isTrue();
        assertThat(ops.classifiesPerInput("webhook")).isFalse();
        OperationClassifiers byMap = OperationClassifiers.of(Map.of("webhook", registry.find("webhook").orElseThrow().classifier()));
        assertThat(byMap.classifiesPerInput("webhook")).isFalse();
        assertThat(byMap.classifiesPerInput("cli")).as("no cli connector configured").isFalse();
        assertThat(byMap.classify("webhook", "get_notes", "{}")).isPresent();
    }
}
