package io.actiongate.approver.stepup;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** Malformed WebAuthn data is a refused step-up, never an exception that escapes. */
class PasskeysTest {

    private final Passkeys passkeys = new Passkeys("https://approve.example.com", "approve.example.com");
    private final byte[] clientData = ("{\"type\":\"webauthn.create\",\"challenge\":\"AAAA\","
            + "\"origin\":\"https://approve.example.com\"}").getBytes(StandardCharsets.UTF_8);

    @Test
    void shouldRefuseMalformedRegistrations() {
        byte[] onlyFmt = {(byte) 0xa1, 0x63, 'f', 'm', 't', 0x64, 'n', 'o', 'n', 'e'};
        assertThatThrownBy(() -> passkeys.register(new byte[32], onlyFmt, clientData))
                .isInstanceOf(StepUpException.class);
        assertThatThrownBy(() -> passkeys.register(new byte[32], new byte[] {1, 2, 3}, clientData))
                .isInstanceOf(StepUpException.class);
        assertThatThrownBy(() -> passkeys.register(new byte[32], onlyFmt, new byte[] {'{'}))
                .isInstanceOf(StepUpException.class);
    }
}
