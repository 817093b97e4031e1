package io.actiongate.gate.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

import io.actiongate.serde.UnknownFormatException;

/**
 * A value of the gate's own stores in a layout a newer gate writes is not read as something else, skipped or
 * rewritten: reading it throws {@link UnknownFormatException}, which stops the gate (docs/operating.md, "Upgrades").
 */
class NewerStateLayoutsTest {

    /** A value in the single-object layout of another fingerprint whose Avro body starts with {@code release}. */
    static byte[] newerActionState(String release) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(new byte[] {(byte) 0xC3, 0x01, 1, 2, 3, 4, 5, 6, 7, 8});
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
        if (release != null) {
            encoder.writeString(release);
        }
        encoder.writeString("T-1");
        encoder.flush();
        return out.toByteArray();
    }

    @Test
    void shouldStopOnAnActionStateOfANewerLayoutNamingTheReleaseItStartsWith() throws IOException {
        assertThatThrownBy(() -> new ActionStateSerde().deserialize("app-gate-actions-changelog",
                newerActionState("actiongate 0.2.0")))
                .isInstanceOf(UnknownFormatException.class)
                .hasMessageContaining("stops: app-gate-actions-changelog holds ActionState in the layout of "
                        + "fingerprint 0102030405060708 written by actiongate 0.2.0, which this release does not read "
                        + "(it reads ActionState layouts 1 (JSON) and 2); nothing was changed");
        assertThatThrownBy(() -> new ActionStateSerde().deserialize(null, newerActionState(null)))
                .isInstanceOf(UnknownFormatException.class)
                .hasMessageContaining("gate-actions holds ActionState in the layout of fingerprint 0102030405060708 "
                        + "written by a newer actiongate release");
        // not the single-object marker at all: corruption, not a version (as before)
        assertThatThrownBy(() -> new ActionStateSerde().deserialize("t", new byte[] {9, 9, 9, 9, 9, 9, 9, 9, 9, 9}))
                .isInstanceOf(SerializationException.class).isNotInstanceOf(UnknownFormatException.class);
    }

    @Test
    void shouldStopOnADecisionClaimOfANewerLayout() {
        byte[] v2 = ("{\"v\":2,\"actionKey\":\"T-1/call-7\",\"fingerprint\":\"k:s\",\"claimedAt\":1,"
                + "\"writtenBy\":\"actiongate 0.2.0\",\"scope\":\"org\"}").getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> DecisionClaim.serde().deserialize("app-gate-decision-claims-changelog", v2))
                .isInstanceOf(UnknownFormatException.class)
                .hasMessageContaining("app-gate-decision-claims-changelog holds DecisionClaim v2 written by "
                        + "actiongate 0.2.0, which this release does not read (it reads DecisionClaim v1)");
        byte[] v1 = "{\"v\":1,\"actionKey\":\"T-1/call-7\",\"fingerprint\":\"k:s\",\"claimedAt\":1}"
                .getBytes(StandardCharsets.UTF_8);
        assertThat(DecisionClaim.serde().deserialize("t", v1)).isEqualTo(new DecisionClaim(1, "T-1/call-7", "k:s", 1));
    }

    @Test
    void shouldStopOnATimerOfAKindANewerGateLogs() {
        assertThatThrownBy(() -> Timers.parse("0000001767225660000|Z|T-1/call-7"))
                .isInstanceOf(UnknownFormatException.class)
                .hasMessageContaining("gate-timers holds a timer of kind 'Z' written by a newer actiongate release")
                .hasMessageContaining("it reads timer kinds A R L P D C");
    }
}
