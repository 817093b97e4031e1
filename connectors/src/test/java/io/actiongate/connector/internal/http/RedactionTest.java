package io.actiongate.connector.internal.http;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RedactionTest {

    @Test
    void shouldBoundAndFlattenText() {
        String snippet = Redaction.snippet("line one\r\nline\ttwo\u0000" + "z".repeat(500), 40, List.of());

        assertThat(snippet).startsWith("line one line two").hasSizeLessThanOrEqualTo(40).doesNotContain("\n", "\t");
    }

    @Test
    void shouldBlankSecretsAndTokenLookingValues() {
        String text = "key=abc password: hunter2 Bearer eyJhbGciOi.x.y plain mysecretvalue "
                + "AKIAABCDEFGHIJKLMNOPQRSTUVWXYZ012345";

        String snippet = Redaction.snippet(text, 500, List.of("mysecretvalue"));

        assertThat(snippet).doesNotContain("hunter2", "eyJhbGciOi", "mysecretvalue", "AKIAABCDEFGHIJ")
                .contains("plain");
    }

    @Test
    void shouldKeepOpaqueIdentifiersButDropOnesHoldingSecretsOrControls() {
        String uuid = "123e4567-e89b-12d3-a456-426614174000";

        assertThat(Redaction.identifier(uuid, 128, List.of("s3cret"))).isEqualTo(uuid);
        assertThat(Redaction.identifier("id-s3cret-1", 128, List.of("s3cret"))).isNull();
        assertThat(Redaction.identifier("id\r\nX-Injected: 1", 128, List.of())).isNull();
        assertThat(Redaction.identifier("x".repeat(129), 128, List.of())).isNull();
    }
}
