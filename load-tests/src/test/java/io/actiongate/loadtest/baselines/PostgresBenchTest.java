package io.actiongate.loadtest.baselines;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

/**
 * Row pg's invariant check must fail on wrong output (a doubled or lost provider request, a second claim, a
 * conflicting input not refused), or a fast but wrong baseline would pass. No PostgreSQL or broker needed.
 */
class PostgresBenchTest {

    private static final String ONE_REQUEST = "row pg: one provider request per action (none lost, none doubled)";

    @Test
    void shouldHoldEveryInvariantOnCorrectOutput() {
        assertThat(PostgresBench.check(outcome(correctRequests()))).hasSize(6).allMatch(PostgresBench.Check::held);
    }

    @Test
    void shouldFailOnADoubledProviderEffect() {
        Map<String, Integer> requests = correctRequests();
        requests.put("ag-3", 2);

        List<PostgresBench.Check> checks = PostgresBench.check(outcome(requests));

        assertThat(checks).filteredOn(c -> !c.held()).extracting(PostgresBench.Check::name)
                .containsExactly(ONE_REQUEST);
        assertThat(checks).filteredOn(c -> c.name().equals(ONE_REQUEST)).singleElement()
                .satisfies(c -> assertThat(c.detail()).contains("doubled 1 (ag-3 x2)"));
    }

    @Test
    void shouldFailOnALostOrUnexpectedProviderRequest() {
        Map<String, Integer> lost = correctRequests();
        lost.remove("ag-0");
        Map<String, Integer> unexpected = correctRequests();
        unexpected.put("ag-other", 1);

        assertThat(held(PostgresBench.check(outcome(lost)), ONE_REQUEST)).isFalse();
        assertThat(held(PostgresBench.check(outcome(unexpected)), ONE_REQUEST)).isFalse();
    }

    @Test
    void shouldFailOnASecondClaimAndOnAConflictNotRefused() {
        PostgresBench.Outcome ok = outcome(correctRequests());
        PostgresBench.Outcome twice = new PostgresBench.Outcome(ok.actions(), ok.warmup(), ok.receipts(),
                ok.warmupReceipts(), ok.claimInserts() + 1, ok.claimRows(), ok.claimsSucceeded(), 0,
                ok.idempotencyKeys(), ok.requestsByKey(), 5, 5, 5, 5, 5, 5, 5);
        PostgresBench.Outcome accepted = new PostgresBench.Outcome(ok.actions(), ok.warmup(), ok.receipts(),
                ok.warmupReceipts(), ok.claimInserts(), ok.claimRows(), ok.claimsSucceeded(), 0,
                ok.idempotencyKeys(), ok.requestsByKey(), 5, 5, 5, 5, 4, 4, 4);

        assertThat(held(PostgresBench.check(twice), "row pg: every proposal claimed exactly once")).isFalse();
        assertThat(held(PostgresBench.check(accepted),
                "row pg: a conflicting-digest duplicate refused, the first claim kept")).isFalse();
    }

    private static boolean held(List<PostgresBench.Check> checks, String name) {
        return checks.stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow().held();
    }

    /** 8 actions and 2 warm-up ones, idempotency keys ag-0..ag-9. */
    private static Map<String, Integer> correctRequests() {
        Map<String, Integer> requests = new HashMap<>();
        IntStream.range(0, 10).forEach(i -> requests.put("ag-" + i, 1));
        return requests;
    }

    private static PostgresBench.Outcome outcome(Map<String, Integer> requests) {
        List<String> keys = IntStream.range(0, 10).mapToObj(i -> "ag-" + i).toList();
        return new PostgresBench.Outcome(8, 2, 8, 2, 10, 10, 10, 0, keys, requests, 5, 5, 5, 5, 5, 5, 5);
    }
}
