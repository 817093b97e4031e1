package io.actiongate.connector.spi;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The pure half of a connector: what the gate asks at admission and again right before each reservation
 * (docs/contract.md section 4, "Classification"). A classifier is built from the same {@code connectors.<provider>.*}
 * settings as the full {@link Connector} but reads no credential, opens no connection and never calls out, so every
 * gate instance can hold one for each configured provider without holding a provider secret
 * ({@link ConnectorFactory#classifier(ConnectorContext)}).
 *
 * <p>Both methods are pure, thread-safe and fail closed; they never throw, whatever the input (null, not JSON,
 * huge, hostile): anything they cannot read is {@link Classification.Kind#UNSUPPORTED} or an invalid
 * {@link Validation}.
 */
@Incubating
public interface OperationClassifier {

    /** The provider name that proposals and reservations carry, e.g. {@code webhook}. */
    String provider();

    /**
     * Says whether {@code operation} with {@code inputJson} only reads or has an effect. Fails closed:
     * an operation the connector does not recognise is {@link Classification.Kind#UNSUPPORTED}, never READ.
     */
    Classification classify(String operation, String inputJson);

    /** Checks the input against the connector's bounds before anything is reserved. Pure; never calls out. */
    Validation validate(String operation, String inputJson);

    /**
     * {@link #classify(String, String)} given the gate's strict parse of {@code inputJson} (duplicate member names
     * rejected), or null when there is none: an implementation that reads the input reads this tree instead of
     * parsing the text again. By default the tree is not used.
     */
    default Classification classify(String operation, String inputJson, JsonNode parsedInput) {
        return classify(operation, inputJson);
    }

    /** {@link #validate(String, String)} given the gate's strict parse of {@code inputJson}, or null. */
    default Validation validate(String operation, String inputJson, JsonNode parsedInput) {
        return validate(operation, inputJson);
    }

    /**
     * Whether {@link #classify} reads each input (the CLI classifier proves each argument vector read-only), so that
     * its {@code READ} is trusted read evidence by itself. {@code false} (the default, and the safe answer) means it
     * classifies by operation name only: the gate then also needs the tool descriptor's {@code read_only_hint=true}
     * before it treats a {@code READ} as read-only.
     */
    default boolean classifiesPerInput() {
        return false;
    }
}
