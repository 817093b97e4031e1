package io.actiongate.serde;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.actiongate.avro.OutcomeStatus;
import io.actiongate.avro.Verdict;
import io.actiongate.connector.spi.DispatchResult;
import io.actiongate.connector.spi.LookupResult;

class WireEnumsTest {

    @ParameterizedTest
    @EnumSource(DispatchResult.Status.class)
    void shouldMapEveryDispatchStatusToTheWireAndBack(DispatchResult.Status status) {
        OutcomeStatus wire = WireEnums.wire(status);
        assertEquals(status.name(), wire.name(), "the wire keeps the contract's names");
        assertEquals(status, WireEnums.status(wire));
    }

    @ParameterizedTest
    @EnumSource(OutcomeStatus.class)
    void shouldReadEveryWireOutcomeStatus(OutcomeStatus wire) {
        assertEquals(wire, WireEnums.wire(WireEnums.status(wire)));
    }

    @ParameterizedTest
    @EnumSource(LookupResult.Verdict.class)
    void shouldMapEveryVerdict(LookupResult.Verdict verdict) {
        assertEquals(verdict.name(), WireEnums.wire(verdict).name());
    }

    @Test
    void shouldRefuseATableThatMissesAConstant() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> WireEnums.total(
                LookupResult.Verdict.class, Verdict.class,
                Map.of(LookupResult.Verdict.EFFECT_CONFIRMED, Verdict.EFFECT_CONFIRMED,
                        LookupResult.Verdict.NO_EFFECT, Verdict.NO_EFFECT)));
        assertEquals("io.actiongate.connector.spi.LookupResult$Verdict.STILL_UNKNOWN has no io.actiongate.avro.Verdict",
                e.getMessage());
    }

    @Test
    void shouldRefuseATableThatLeavesAWireConstantUnreachable() {
        assertThrows(IllegalStateException.class, () -> WireEnums.total(LookupResult.Verdict.class, Verdict.class,
                Map.of(LookupResult.Verdict.EFFECT_CONFIRMED, Verdict.EFFECT_CONFIRMED,
                        LookupResult.Verdict.NO_EFFECT, Verdict.NO_EFFECT,
                        LookupResult.Verdict.STILL_UNKNOWN, Verdict.NO_EFFECT)));
    }
}
