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
}
