package io.actiongate.chaos.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.actiongate.avro.ReceiptStatus;

/** The checker's receipt order is the lifecycle table of docs/contract.md section 4, row for row. */
class ReceiptOrderTest {

    private static final Pattern STATUS = Pattern.compile("`([A-Z_]+)`");

    @Test
    void shouldHoldExactlyTheTransitionsOfTheContractsLifecycleTable() throws IOException {
        Map<ReceiptStatus, Set<ReceiptStatus>> table = new EnumMap<>(ReceiptStatus.class);
        Set<ReceiptStatus> fromProposal = EnumSet.noneOf(ReceiptStatus.class);
        for (String row : lifecycleRows()) {
            String[] cells = row.split("\\|");
            String from = cells[1].trim();
            Set<ReceiptStatus> to = statuses(cells[2]);
            if (from.equals("(proposal)")) {
                fromProposal.addAll(to);
            } else {
                statuses(from).forEach(f -> table.computeIfAbsent(f, k -> EnumSet.noneOf(ReceiptStatus.class))
                        .addAll(to));
            }
        }
        assertThat(table).isNotEmpty();
        Map<ReceiptStatus, Set<ReceiptStatus>> ours = new EnumMap<>(ReceiptStatus.class);
        ReceiptOrder.EDGES.forEach((k, v) -> {
            if (!v.isEmpty()) {
                ours.put(k, v);
            }
        });
        assertThat(ours).isEqualTo(table);
        assertThat(ReceiptOrder.FROM_PROPOSAL).isEqualTo(fromProposal);
    }

    @Test
    void shouldCallDispatchingAfterSucceededBackwards() {
        assertThat(ReceiptOrder.forward(ReceiptStatus.SUCCEEDED, ReceiptStatus.DISPATCHING)).isFalse();
        assertThat(ReceiptOrder.forward(ReceiptStatus.APPROVED, ReceiptStatus.WAITING_APPROVAL)).isFalse();
        assertThat(ReceiptOrder.forward(ReceiptStatus.UNKNOWN, ReceiptStatus.WAITING_APPROVAL)).isFalse();
        assertThat(ReceiptOrder.forward(ReceiptStatus.NOT_APPLIED, ReceiptStatus.APPROVED)).isFalse();
    }

    @Test
    void shouldAcceptMovesWhoseReceiptsInBetweenWereCompactedAway() {
        assertThat(ReceiptOrder.forward(ReceiptStatus.WAITING_APPROVAL, ReceiptStatus.SUCCEEDED)).isTrue();
        assertThat(ReceiptOrder.forward(ReceiptStatus.DISPATCHING, ReceiptStatus.DISPATCHING)).isTrue(); // a retry
        assertThat(ReceiptOrder.forward(ReceiptStatus.UNKNOWN, ReceiptStatus.DISPATCHING)).isTrue(); // repeat-safe
        assertThat(ReceiptOrder.forward(null, ReceiptStatus.UNKNOWN)).isTrue();
    }

    /** The rows of the table under "## 4. The action lifecycle", up to the next blank line after it. */
    private static List<String> lifecycleRows() throws IOException {
        String contract = Files.readString(Path.of("..", "docs", "contract.md"), StandardCharsets.UTF_8);
        int section = contract.indexOf("## 4. The action lifecycle");
        assertThat(section).as("lifecycle section in docs/contract.md").isPositive();
        int start = contract.indexOf("| from | to | when |", section);
        int end = contract.indexOf("\n\n", start);
        return contract.substring(start, end).lines().skip(2).toList();
    }

    private static Set<ReceiptStatus> statuses(String cell) {
        Set<ReceiptStatus> out = EnumSet.noneOf(ReceiptStatus.class);
        Matcher m = STATUS.matcher(cell);
        while (m.find()) {
            out.add(ReceiptStatus.valueOf(m.group(1)));
        }
        return out;
    }
}
