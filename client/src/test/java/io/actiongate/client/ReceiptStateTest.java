package io.actiongate.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.EnumSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.actiongate.avro.ReceiptStatus;

class ReceiptStateTest {

    @Test
    void shouldHaveAStateForEveryWireStatusUnderTheContractsName() {
        for (ReceiptStatus wire : ReceiptStatus.values()) {
            assertEquals(wire.name(), ReceiptState.of(wire).name());
        }
    }

    @Test
    void shouldBeTheImageOfExactlyOneWireStatusEach() {
        Set<ReceiptState> reached = EnumSet.noneOf(ReceiptState.class);
        for (ReceiptStatus wire : ReceiptStatus.values()) {
            reached.add(ReceiptState.of(wire));
        }
        assertEquals(EnumSet.allOf(ReceiptState.class), reached);
        assertEquals(ReceiptState.values().length, ReceiptStatus.values().length);
    }
}
