package io.actiongate.secrets;

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

    @Test
    void shouldKeepTheLabelAndMaskTheValueBeforeATopic() {
        String text = "401 from https://api.example/v1?key=abc Authorization: Bearer tok123 password=hunter2 "
                + "at /home/alice/.config\n" + "z".repeat(300);

        String redacted = Redaction.redact(text);

        assertThat(redacted).contains("Bearer " + Redaction.MASK, "password=" + Redaction.MASK)
                .doesNotContain("tok123", "hunter2", "key=abc", "/home/alice", "\n")
                .hasSizeLessThanOrEqualTo(Redaction.DEFAULT_MAX_LENGTH);
        assertThat(Redaction.redact(null)).isNull();
    }

    @Test
    void shouldKeepAPlainReceiptIdAndScrubAnyOther() {
        assertThat(Redaction.receiptId("msg-42@mail.example")).isEqualTo("msg-42@mail.example");
        assertThat(Redaction.receiptId("Bearer tok123")).isEqualTo("Bearer " + Redaction.MASK);
    }

    @Test
    void shouldMaskAWellKnownTokenTooShortToLookOpaque() {
        // 20 characters: below the 32 of the opaque-token rule, yet the scanner's AWS key id shape
        String key = "AKIA" + "ABCDEFGHIJKLMNOP";

        assertThat(Redaction.snippet("id " + key + " ok", 120, List.of())).isEqualTo("id " + Redaction.MASK + " ok");
        assertThat(Redaction.redact("id " + key + " ok")).isEqualTo("id " + Redaction.MASK + " ok");
        assertThat(Redaction.identifier(key, 128, List.of())).isNull();
    }
}
