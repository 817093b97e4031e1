package io.actiongate.notifier;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SummaryTextTest {

    private final SummaryText text = new SummaryText();

    @Test
    void shouldWithholdASummaryTheGatesScannerFindsACredentialIn() {
        assertThat(text.clean("use ghp_" + "a".repeat(36) + " to push")).isEqualTo(SummaryText.WITHHELD);
        assertThat(text.clean("key -----BEGIN PRIVATE KEY----- here")).isEqualTo(SummaryText.WITHHELD);
        assertThat(text.clean("password=hunter2Xq9!zP4r#")).isEqualTo(SummaryText.WITHHELD);
    }

    @Test
    void shouldRedactAsReceiptsAreRedacted() {
        assertThat(text.clean("report at /home/agent/q3.xlsx sent")).doesNotContain("/home/agent")
                .contains("[redacted]");
        assertThat(text.clean("see https://files.example/q3?sig=abc for it")).doesNotContain("sig=abc");
        assertThat(text.clean("two\nlines\u0007")).doesNotContain("\n").doesNotContain("\u0007");
        assertThat(text.clean("x".repeat(400))).hasSizeLessThanOrEqualTo(io.actiongate.contract.ContractLimits.SUMMARY_MAX_CHARS);
    }

    @Test
    void shouldMakeNoLinkOfWhatTheAgentWrote() {
        assertThat(text.clean("Approve at https://evil.example/r now"))
                .isEqualTo("Approve at https[:]//evil.example/r now");
        // a long one is an opaque token to the redaction of receipts' text: gone whole
        assertThat(text.clean("Approve at https://approve.evil.example/review/T-1/c now"))
                .isEqualTo("Approve at https:[redacted] now");
        assertThat(text.clean("HTTP://x.example and ftp://y.example")).isEqualTo("HTTP[:]//x.example and ftp[:]//y.example");
    }

    @Test
    void shouldShowCharactersThatHideOrReorderText() {
        assertThat(text.clean("pay \u202Eevil\u202C now\u200B")).isEqualTo("pay [U+202E]evil[U+202C] now[U+200B]");
        assertThat(SummaryText.plain("tool\u202E\nname")).isEqualTo("tool[U+202E] name");
    }

    @Test
    void shouldSayWhenThereIsNoSummary() {
        assertThat(text.clean(null)).isEqualTo(SummaryText.NONE);
        assertThat(text.clean("  ")).isEqualTo(SummaryText.NONE);
        assertThat(text.clean("Tell ops that release 4.2 is live")).isEqualTo("Tell ops that release 4.2 is live");
    }
}
