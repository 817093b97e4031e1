package io.actiongate.gate.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The lifecycle table, generated from the gate's DESIGN.md: the "State machine" diagram is parsed into its moves,
 * the table under it is read, and both must equal {@link Phase#next()}. Then every pair of phases is tried on
 * {@link ActionState#to}: each move of the table is allowed, every other one refused.
 */
class LifecycleTableTest {

    private static final Path DESIGN = Path.of("src/main/java/io/actiongate/gate/DESIGN.md");
    private static final Pattern PHASE = Pattern.compile("\\b(" + String.join("|",
            Stream.of(Phase.values()).map(Phase::name).toList()) + ")\\b");

    static String section() throws IOException {
        String text = Files.readString(DESIGN, StandardCharsets.UTF_8);
        int start = text.indexOf("## State machine");
        assertThat(start).as("DESIGN.md has a State machine section").isNotNegative();
        int end = text.indexOf("\n## ", start + 1);
        return text.substring(start, end < 0 ? text.length() : end);
    }

    /** The moves the ASCII diagram draws. */
    static Map<Phase, Set<Phase>> diagram() throws IOException {
        String section = section();
        int open = section.indexOf("```\n");
        String block = section.substring(open + 4, section.indexOf("```", open + 4));
        Map<Phase, Set<Phase>> moves = empty();
        Phase subject = null;
        for (String line : block.split("\n")) {
            String trimmed = line.strip();
            if (trimmed.startsWith("(new)")) {
                subject = Phase.NEW;
                line = line.replace("(new)", "");
            } else if (!trimmed.startsWith("│")) {
                Matcher lead = PHASE.matcher(trimmed);
                subject = lead.lookingAt() ? Phase.valueOf(lead.group(1)) : null;
                if (subject != null) {
                    line = trimmed.substring(lead.end());
                }
            }
            if (subject == null) {
                continue;
            }
            String[] segments = line.replaceAll("\\([^)]*\\)", "").split("▶", -1);
            List<Phase> sources = List.of(subject);
            for (int i = 1; i < segments.length; i++) {
                String segment = segments[i];
                int label = segment.indexOf('─');
                List<Phase> targets = phases(label < 0 ? segment : segment.substring(0, label));
                for (Phase from : sources) {
                    moves.get(from).addAll(targets);
                }
                if (!targets.isEmpty()) {
                    sources = List.of(targets.get(targets.size() - 1)); // a chain continues from its last target
                }
            }
        }
        return moves;
    }

    /** The table under the diagram: | phases | may move to |. */
    static Map<Phase, Set<Phase>> table() throws IOException {
        Map<Phase, Set<Phase>> moves = empty();
        int rows = 0;
        for (String line : section().split("\n")) {
            String[] cells = line.split("\\|");
            if (!line.startsWith("| `") || cells.length < 3) {
                continue;
            }
            rows++;
            for (Phase from : phases(cells[1])) {
                moves.get(from).addAll(phases(cells[2]));
            }
        }
        assertThat(rows).as("table rows").isPositive();
        return moves;
    }

    private static List<Phase> phases(String text) {
        List<Phase> found = new ArrayList<>();
        Matcher m = PHASE.matcher(text);
        while (m.find()) {
            found.add(Phase.valueOf(m.group(1)));
        }
        return found;
    }

    private static Map<Phase, Set<Phase>> empty() {
        Map<Phase, Set<Phase>> moves = new EnumMap<>(Phase.class);
        for (Phase p : Phase.values()) {
            moves.put(p, EnumSet.noneOf(Phase.class));
        }
        return moves;
    }

    private static Map<Phase, Set<Phase>> code() {
        Map<Phase, Set<Phase>> moves = new EnumMap<>(Phase.class);
        for (Phase p : Phase.values()) {
            moves.put(p, EnumSet.copyOf(p.next().isEmpty() ? EnumSet.noneOf(Phase.class) : p.next()));
        }
        return moves;
    }

    @Test
    void shouldDrawInTheDiagramExactlyTheMovesOfTheTableAndTheCode() throws IOException {
        Map<Phase, Set<Phase>> diagram = diagram();
        assertThat(diagram.get(Phase.WAITING_APPROVAL)).as("parsed something").isNotEmpty();
        assertThat(diagram).as("DESIGN.md diagram vs table").isEqualTo(table());
        assertThat(code()).as("Phase.next() vs DESIGN.md").isEqualTo(diagram);
    }

    @Test
    void shouldCallTerminalExactlyThePhasesThatGoNowhere() {
        assertThat(Stream.of(Phase.values()).filter(Phase::terminal)).containsExactlyInAnyOrder(Phase.SUCCEEDED,
                Phase.FAILED, Phase.REJECTED, Phase.DENIED, Phase.EXPIRED, Phase.CANCELLED, Phase.NOT_APPLIED);
        assertThat(Stream.of(Phase.values()).filter(p -> p.canMoveTo(Phase.NEW))).as("nothing returns to NEW")
                .isEmpty();
    }

    static Stream<Arguments> everyPair() throws IOException {
        Map<Phase, Set<Phase>> table = table();
        List<Arguments> pairs = new ArrayList<>();
        for (Phase from : Phase.values()) {
            for (Phase to : Phase.values()) {
                pairs.add(Arguments.of(from, to, table.get(from).contains(to)));
            }
        }
        return pairs.stream();
    }

    @ParameterizedTest(name = "{0} -> {1} allowed: {2}")
    @MethodSource("everyPair")
    void shouldAllowExactlyTheMovesOfTheTable(Phase from, Phase to, boolean allowed) {
        ActionState state = in(from);
        if (allowed) {
            ActionState moved = state.to(to, null, "r", 2L);
            assertThat(moved.phase()).isEqualTo(to);
            assertThat(moved.updatedAt()).isEqualTo(2L);
        } else {
            assertThatThrownBy(() -> state.to(to, null, "r", 2L))
                    .isInstanceOfSatisfying(IllegalTransitionException.class, e -> {
                        assertThat(e.from()).isEqualTo(from);
                        assertThat(e.to()).isEqualTo(to);
                        assertThat(e.getMessage()).isEqualTo("illegal transition " + from + " -> " + to);
                    });
        }
    }

    private static ActionState in(Phase phase) {
        ActionState fresh = ActionState.fresh(InternalModelTest.action(), "sha256:d", 1L);
        return new ActionState(fresh.v(), fresh.action(), phase, null, null, fresh.actionDigest(), null, null, null,
                fresh.attempts(), null, null, null, null, null, 1L, 1L, null);
    }
}
