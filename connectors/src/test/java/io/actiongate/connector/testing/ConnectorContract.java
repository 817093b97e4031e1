package io.actiongate.connector.testing;

import io.actiongate.connector.spi.Classification;
import io.actiongate.connector.spi.Classification.Kind;
import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.ConnectorContext;
import io.actiongate.connector.spi.ConnectorFactory;
import io.actiongate.connector.spi.DispatchRequest;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.DispatchResult.Status;
import io.actiongate.connector.spi.LookupResult;
import io.actiongate.connector.spi.LookupResult.Verdict;
import io.actiongate.connector.spi.OperationClassifier;
import io.actiongate.connector.spi.Validation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * The checks every classifier-bearing connector passes, bundled and third-party alike (the {@code tests} jar of
 * {@code actiongate-connectors}). Extend it in a JUnit 5 test, answer the abstract methods with your connector's
 * factory, a stand-in for its provider that runs on this machine, and a few example inputs; the contract then checks:
 * <ul>
 *   <li>the factory is found by {@link ServiceLoader} and builds its classifier without any credential, answering
 *       exactly as the full connector does;</li>
 *   <li>classification: the read, effect, refused and unsupported examples, and no exception and no READ for garbage;
 *   </li>
 *   <li>validation: invalid inputs and refused vectors are refused at dispatch too, and reach nothing;</li>
 *   <li>execution: one effect, SUCCEEDED; a provider that does not answer in time, UNKNOWN; an answer that proves
 *       nothing, UNKNOWN (never SUCCEEDED, never a retry);</li>
 *   <li>reconciliation: an effect it made is never reported {@code NO_EFFECT} (and is confirmed when the connector
 *       says its lookup can confirm); stale recovery: a key never dispatched is never {@code EFFECT_CONFIRMED}, and
 *       looking it up acts on nothing.</li>
 * </ul>
 */
public abstract class ConnectorContract {

    /** What the provider stand-in is arranged to do when {@link #settings(Scenario)} is asked. */
    public enum Scenario {
        /** Applies the effect and answers as the provider documents. */
        SUCCEEDS,
        /** Applies the effect (or may have) and does not answer within the connector's configured timeout. */
        HANGS,
        /** Applies the effect and answers something that does not prove it (a 5xx, a malformed 2xx, a kill). */
        ANSWERS_UNPROVABLY
    }

    /** One operation and input. */
    public record Example(String operation, String inputJson) {
    }

    private final List<Connector> built = new ArrayList<>();

    /** The factory under test; it must also be listed in {@code META-INF/services}. */
    protected abstract ConnectorFactory factory();

    /**
     * The connector's settings (the {@code connectors.<provider>.} prefix stripped) for a stand-in provider arranged
     * for {@code scenario}. Called once per built connector, before anything is dispatched. Timeouts should be short
     * (about a second), since {@link Scenario#HANGS} waits for them.
     */
    protected abstract Map<String, String> settings(Scenario scenario);

    /** The secret references used by {@link #settings} and their values (empty for a connector without any). */
    protected abstract Map<String, String> secrets();

    /** An input the connector classifies {@code READ}, if it has any. */
    protected abstract Optional<Example> read();

    /** A valid input the connector classifies {@code EFFECT}. */
    protected abstract Example effect();

    /** Inputs classified {@code REJECTED_AUTH_OR_CONFIG} or {@code REJECTED_UNBOUNDED} (empty if it has none). */
    protected abstract List<Example> refused();

    /** An operation (and input) the connector does not support. */
    protected abstract Example unsupported();

    /** Inputs that break a bound: {@code validate} refuses them. At least one. */
    protected abstract List<Example> invalid();

    /** How many effects the stand-in provider has applied (distinct idempotency keys, messages, posts...). */
    protected abstract long effectsApplied();

    /** Whether this connector's {@code lookup} can confirm an effect with the stand-in as configured. */
    protected abstract boolean lookupConfirmsEffects();

    /** Builds the full connector through the factory, for {@code scenario}. */
    protected final Connector connector(Scenario scenario) {
        Connector connector = factory().create(TestContext.of(settings(scenario), secrets()));
        built.add(connector);
        return connector;
    }

    /** The request the executor would build for {@code example} under {@code key}. */
    protected DispatchRequest request(Example example, String key) {
        return new DispatchRequest("T-contract", "C-" + key, 1, key, "acme", factory().provider(), example.operation(),
                example.operation(), example.inputJson(), List.of(), Instant.now().plusSeconds(60));
    }

    @AfterEach
    void closeConnectors() {
        built.forEach(Connector::close);
        built.clear();
    }

    @Test
    void contractFactoryIsFoundByServiceLoader() {
        assertThat(ServiceLoader.load(ConnectorFactory.class).stream().map(ServiceLoader.Provider::get)
                .map(ConnectorFactory::provider)).contains(factory().provider());
    }

    @Test
    void contractClassifierIsBuiltWithoutCredentialsAndAnswersAsTheConnector() {
        OperationClassifier classifier = factory().classifier(
                ConnectorContext.withoutCredentials(settings(Scenario.SUCCEEDS)));
        Connector connector = connector(Scenario.SUCCEEDS);

        assertThat(classifier.provider()).isEqualTo(factory().provider()).isEqualTo(connector.provider());
        assertThat(classifier.classifiesPerInput()).isEqualTo(connector.classifier().classifiesPerInput());
        for (Example example : everyExample()) {
            assertThat(classifier.classify(example.operation(), example.inputJson()).kind()).as(example.toString())
                    .isEqualTo(connector.classifier().classify(example.operation(), example.inputJson()).kind());
            assertThat(classifier.validate(example.operation(), example.inputJson()).valid()).as(example.toString())
                    .isEqualTo(connector.classifier().validate(example.operation(), example.inputJson()).valid());
        }
    }

    @Test
    void contractFullConnectorRefusesCredentialsThatDoNotResolve() {
        assumeFalse(secrets().isEmpty(), "this connector reads no credential");

        assertThatThrownBy(() -> factory().create(TestContext.of(settings(Scenario.SUCCEEDS), Map.of())))
                .isInstanceOf(RuntimeException.class);
    }

    @Test
    void contractClassifiesReadEffectRefusedAndUnsupported() {
        OperationClassifier classifier = classifier();

        read().ifPresent(r -> {
            assertThat(classifier.classify(r.operation(), r.inputJson()).kind()).as(r.toString()).isEqualTo(Kind.READ);
            assertThat(classifier.validate(r.operation(), r.inputJson()).valid()).as(r.toString()).isTrue();
        });
        assertThat(classifier.classify(effect().operation(), effect().inputJson()).kind()).isEqualTo(Kind.EFFECT);
        assertThat(classifier.validate(effect().operation(), effect().inputJson()).valid()).isTrue();
        for (Example r : refused()) {
            assertThat(classifier.classify(r.operation(), r.inputJson()).kind()).as(r.toString())
                    .isIn(Kind.REJECTED_AUTH_OR_CONFIG, Kind.REJECTED_UNBOUNDED);
        }
        Classification unsupported = classifier.classify(unsupported().operation(), unsupported().inputJson());
        assertThat(unsupported.kind()).isEqualTo(Kind.UNSUPPORTED);
        assertThat(classifier.validate(unsupported().operation(), unsupported().inputJson()).valid()).isFalse();
    }

    @Test
    void contractClassifierNeverThrowsAndNeverSaysReadForGarbage() {
        OperationClassifier classifier = classifier();
        List<String> operations = new ArrayList<>(List.of("", "\u0000", "../" + effect().operation(),
                effect().operation().toUpperCase(java.util.Locale.ROOT) + "_X", "x".repeat(10_000)));
        operations.add(null);
        List<String> inputs = new ArrayList<>(List.of("", "{", "[]", "null", "42", "\"text\"", "{\"a\":1,\"a\":2}",
                "\u0000\u0001\u001b[31m", "[".repeat(5_000), "{\"x\":\"" + "y".repeat(1 << 20)
                        + "\"}", "\uD800"));
        inputs.add(null);
        for (String operation : operations) {
            for (String input : inputs) {
                Classification c = classifier.classify(operation, input);
                Validation v = classifier.validate(operation, input);
                assertThat(c).isNotNull();
                assertThat(c.kind()).as("garbage operation").isNotIn(Kind.READ, Kind.EFFECT);
                assertThat(v.valid()).isFalse();
            }
        }
        for (String input : inputs) {
            Classification c = classifier.classify(effect().operation(), input);
            assertThat(c.kind()).as("garbage input").isNotEqualTo(Kind.READ);
            assertThat(classifier.validate(effect().operation(), input).valid()).as("garbage input").isFalse();
        }
    }

    @Test
    void contractRefusesInvalidAndRefusedInputsAtDispatchAndReachesNothing() {
        Connector connector = connector(Scenario.SUCCEEDS);
        List<Example> refusedAtDispatch = new ArrayList<>(invalid());
        refusedAtDispatch.addAll(refused());
        refusedAtDispatch.add(unsupported());
        assertThat(invalid()).isNotEmpty();
        int n = 0;
        for (Example example : refusedAtDispatch) {
            if (invalid().contains(example)) {
                assertThat(connector.classifier().validate(example.operation(), example.inputJson()).valid()).as(example.toString())
                        .isFalse();
            }
            DispatchResult result = connector.dispatch(request(example, "refused-" + n++));
            assertThat(result.status()).as(example.toString()).isIn(Status.FAILED, Status.NOT_DISPATCHED);
            assertThat(result.dispatched()).as(example.toString()).isFalse();
        }
        assertThat(effectsApplied()).isZero();
    }

    @Test
    void contractSucceedsOnceForAnApprovedEffect() {
        DispatchResult result = connector(Scenario.SUCCEEDS).dispatch(request(effect(), "effect-1"));

        assertThat(result.status()).isEqualTo(Status.SUCCEEDED);
        assertThat(result.dispatched()).isTrue();
        assertThat(result.errorCode()).isNull();
        if (result.providerReceiptId() != null) {
            assertThat(result.providerReceiptId()).hasSizeLessThanOrEqualTo(128)
                    .matches("[\\x21-\\x7e]+");
        }
        assertThat(effectsApplied()).isEqualTo(1);
    }

    @Test
    void contractReportsAProviderThatDoesNotAnswerInTimeAsUnknown() {
        Connector connector = connector(Scenario.HANGS);
        Instant start = Instant.now();

        DispatchResult result = connector.dispatch(request(effect(), "hang-1"));

        assertThat(result.status()).isEqualTo(Status.UNKNOWN);
        assertThat(result.dispatched()).isTrue();
        assertThat(result.retryAt()).isNull();
        assertThat(Duration.between(start, Instant.now())).isLessThan(Duration.ofSeconds(30));
    }

    @Test
    void contractReportsAnAnswerThatProvesNothingAsUnknownAndNeverDeniesTheEffect() {
        Connector connector = connector(Scenario.ANSWERS_UNPROVABLY);

        DispatchResult result = connector.dispatch(request(effect(), "unprovable-1"));

        assertThat(result.status()).isEqualTo(Status.UNKNOWN);
        assertThat(result.dispatched()).isTrue();
        assertThat(result.providerReceiptId()).isNull();
        assertThat(effectsApplied()).isEqualTo(1);
        LookupResult lookup = connector.lookup(Requests.lookup(factory().provider(), effect().operation(),
                "unprovable-1", effect().inputJson()));
        assertThat(lookup.verdict()).isNotEqualTo(Verdict.NO_EFFECT);
    }

    @Test
    void contractReconcilesAnEffectItMade() {
        Connector connector = connector(Scenario.SUCCEEDS);
        assertThat(connector.dispatch(request(effect(), "effect-2")).status()).isEqualTo(Status.SUCCEEDED);

        LookupResult lookup = connector.lookup(Requests.lookup(factory().provider(), effect().operation(),
                "effect-2", effect().inputJson()));

        assertThat(lookup.verdict()).isEqualTo(lookupConfirmsEffects() ? Verdict.EFFECT_CONFIRMED : Verdict.STILL_UNKNOWN);
        assertThat(effectsApplied()).isEqualTo(1);
    }

    @Test
    void contractNeverConfirmsAKeyThatWasNeverDispatched() {
        Connector connector = connector(Scenario.SUCCEEDS);

        LookupResult lookup = connector.lookup(Requests.lookup(factory().provider(), effect().operation(),
                "never-dispatched", effect().inputJson()));
        LookupResult withoutInput = connector.lookup(Requests.lookup(factory().provider(), effect().operation(),
                "never-dispatched", null));

        assertThat(lookup.verdict()).isIn(Verdict.NO_EFFECT, Verdict.STILL_UNKNOWN);
        assertThat(withoutInput.verdict()).isIn(Verdict.NO_EFFECT, Verdict.STILL_UNKNOWN);
        assertThat(effectsApplied()).isZero();
    }

    private OperationClassifier classifier() {
        return factory().classifier(ConnectorContext.withoutCredentials(settings(Scenario.SUCCEEDS)));
    }

    private List<Example> everyExample() {
        List<Example> all = new ArrayList<>();
        read().ifPresent(all::add);
        all.add(effect());
        all.addAll(refused());
        all.add(unsupported());
        all.addAll(invalid());
        return all;
    }
}
