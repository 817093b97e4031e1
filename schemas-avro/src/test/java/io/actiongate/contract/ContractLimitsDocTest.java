package io.actiongate.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link ContractLimits} against the sentences of docs/contract.md that state each limit: the page is read and
 * parsed, so a limit changed on one side only fails here.
 */
class ContractLimitsDocTest {

    private static String doc;

    @BeforeAll
    static void readThePage() throws IOException {
        doc = RepositoryFiles.read("docs/contract.md");
    }

    /** The one capture of {@code sentence} in the contract; fails when the sentence is missing or said twice. */
    private static String stated(String sentence) {
        List<String> found = new ArrayList<>();
        Matcher m = Pattern.compile(sentence).matcher(doc);
        while (m.find()) {
            found.add(m.group(1));
        }
        assertThat(found).as("docs/contract.md states /%s/ once", sentence).hasSize(1);
        return found.get(0);
    }

    @Test
    void shouldLimitTheSummaryAsTheContractStates() {
        String limit = stated("`summary` is plain language, at most `gate\\.summary\\.max\\.chars` \\((\\d+)\\) "
                + "characters");

        assertThat(ContractLimits.SUMMARY_MAX_CHARS).isEqualTo(Integer.parseInt(limit));
    }

    @Test
    void shouldDefaultTheInputLimitAsTheContractStates() {
        String limit = stated("`input_json` is at most the tool's `max_input_bytes` UTF-8 bytes, or\\s+"
                + "`gate\\.max\\.input\\.bytes\\.default` \\((\\d+)\\)");

        assertThat(ContractLimits.DEFAULT_MAX_INPUT_BYTES).isEqualTo(Integer.parseInt(limit));
    }

    @Test
    void shouldShapeIdsAsTheContractStates() {
        // section 2 (keys) and section 4 (reason codes) both state the shape; each must be the code's
        String keys = stated("Both ids match `([^`]+)`");
        String reason = stated("\\| `INVALID_IDENTIFIER` \\| an id does not match `([^`]+)` \\|");

        assertThat(ContractLimits.ID_PATTERN.pattern()).isEqualTo(keys).isEqualTo(reason)
                .isEqualTo(ContractLimits.ID_CHARACTERS + "{1," + ContractLimits.ID_MAX_CHARS + "}");
    }

    @Test
    void shouldAcceptAndRefuseIdsAtTheStatedLength() {
        // the parts agree with the pattern: ID_MAX_CHARS characters pass, one more does not, "/" never does
        assertThat(ContractLimits.ID_PATTERN.matcher("a".repeat(ContractLimits.ID_MAX_CHARS)).matches()).isTrue();
        assertThat(ContractLimits.ID_PATTERN.matcher("a".repeat(ContractLimits.ID_MAX_CHARS + 1)).matches())
                .isFalse();
        assertThat(ContractLimits.ID_PATTERN.matcher("T-1/call-7").matches()).isFalse();
        assertThat(ContractLimits.ID_PATTERN.matcher("").matches()).isFalse();
    }
}
