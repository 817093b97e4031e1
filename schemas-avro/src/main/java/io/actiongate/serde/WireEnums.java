package io.actiongate.serde;

import java.util.EnumMap;
import java.util.Map;

import io.actiongate.avro.OutcomeStatus;
import io.actiongate.avro.Verdict;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.LookupResult;

/**
 * The one place where a Java enum of the product meets the Avro enum that carries it on the wire. The Java side is
 * the one type the product uses from dispatch to receipt ({@link DispatchResult.Status} is also what the gate keeps
 * of each attempt); the Avro side is generated from the schemas, which do not change. Each table names every
 * constant explicitly rather than copying by {@code valueOf(name())}, so a renamed or added constant fails here,
 * at class initialisation and in {@code WireEnumsTest}, instead of turning into an {@code IllegalArgumentException}
 * on a stream thread.
 *
 * <p>Only the gate and the workers load this class; the client library, which depends on this module without the
 * connector SPI, never does.
 */
public final class WireEnums {

    private static final Map<DispatchResult.Status, OutcomeStatus> OUTCOME = total(DispatchResult.Status.class,
            OutcomeStatus.class, Map.of(
                    DispatchResult.Status.SUCCEEDED, OutcomeStatus.SUCCEEDED,
                    DispatchResult.Status.FAILED, OutcomeStatus.FAILED,
                    DispatchResult.Status.RETRYABLE, OutcomeStatus.RETRYABLE,
                    DispatchResult.Status.UNKNOWN, OutcomeStatus.UNKNOWN,
                    DispatchResult.Status.NOT_DISPATCHED, OutcomeStatus.NOT_DISPATCHED));
    private static final Map<OutcomeStatus, DispatchResult.Status> OUTCOME_BACK = inverse(OUTCOME, OutcomeStatus.class);

    private static final Map<LookupResult.Verdict, Verdict> VERDICT = total(LookupResult.Verdict.class,
            Verdict.class, Map.of(
                    LookupResult.Verdict.EFFECT_CONFIRMED, Verdict.EFFECT_CONFIRMED,
                    LookupResult.Verdict.NO_EFFECT, Verdict.NO_EFFECT,
                    LookupResult.Verdict.STILL_UNKNOWN, Verdict.STILL_UNKNOWN));

    /** The wire form of what a dispatch observed ({@code AttemptOutcome.status}, {@code AttemptSummary.status}). */
    public static OutcomeStatus wire(DispatchResult.Status status) {
        return OUTCOME.get(status);
    }

    /** What a dispatch observed, read from the wire. */
    public static DispatchResult.Status status(OutcomeStatus wire) {
        return OUTCOME_BACK.get(wire);
    }

    /** The wire form of a reconciler's lookup verdict ({@code Reconciliation.verdict}). */
    public static Verdict wire(LookupResult.Verdict verdict) {
        return VERDICT.get(verdict);
    }

    /** Checks that {@code table} maps every constant of {@code from} and reaches every constant of {@code to}. */
    static <A extends Enum<A>, B extends Enum<B>> Map<A, B> total(Class<A> from, Class<B> to, Map<A, B> table) {
        for (A a : from.getEnumConstants()) {
            if (!table.containsKey(a)) {
                throw new IllegalStateException(from.getName() + "." + a + " has no " + to.getName());
            }
        }
        for (B b : to.getEnumConstants()) {
            if (!table.containsValue(b)) {
                throw new IllegalStateException(to.getName() + "." + b + " is not the image of any " + from.getName());
            }
        }
        return new EnumMap<>(table);
    }

    private static <A extends Enum<A>, B extends Enum<B>> Map<B, A> inverse(Map<A, B> table, Class<B> to) {
        Map<B, A> back = new EnumMap<>(to);
        table.forEach((a, b) -> {
            if (back.put(b, a) != null) {
                throw new IllegalStateException(to.getName() + "." + b + " is the image of two constants");
            }
        });
        return back;
    }

    private WireEnums() {
    }
}
