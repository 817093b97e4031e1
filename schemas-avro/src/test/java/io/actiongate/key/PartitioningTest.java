package io.actiongate.key;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

class PartitioningTest {

    @Test
    void shouldPlaceAKeyWhereJavasDefaultPartitionerPutsIt() {
        for (int partitions : new int[] {1, 2, 3, 12, 24, 100}) {
            for (int i = 0; i < 500; i++) {
                String key = "T-" + i + "/call-" + (i * 7919);
                byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
                assertThat(Partitioning.home(key, partitions)).as(key)
                        .isEqualTo(BuiltInPartitioner.partitionForKey(bytes, partitions))
                        .isEqualTo(Partitioning.home(bytes, partitions));
            }
        }
        assertThatThrownBy(() -> Partitioning.home("a/b", 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldChooseADecisionIdOnTheActionKeysPartition() {
        for (int partitions : new int[] {2, 12, 24}) {
            Set<Integer> homes = new HashSet<>();
            for (int i = 0; i < 200; i++) {
                String actionKey = "T-" + i + "/call-" + i;
                String base = "apr-" + i;
                String id = Partitioning.colocatedDecisionId(k -> base + "#" + k, actionKey, partitions);

                assertThat(id).startsWith(base + "#");
                assertThat(Partitioning.home(id, partitions)).as(actionKey)
                        .isEqualTo(Partitioning.home(actionKey, partitions));
                assertThat(Partitioning.colocatedDecisionId(k -> base + "#" + k, actionKey, partitions))
                        .as("the same candidates give the same id (every approver replica names it alike)")
                        .isEqualTo(id);
                homes.add(Partitioning.home(id, partitions));
            }
            assertThat(homes).as("ids land on every partition, as their actions do").hasSize(partitions);
        }
    }

    @Test
    void shouldKeepTheFirstCandidateWhenItIsAlreadyHomeOrThereIsOnePartition() {
        String actionKey = "T-1/call-1";
        AtomicInteger asked = new AtomicInteger();
        String id = Partitioning.colocatedDecisionId(k -> {
            asked.incrementAndGet();
            return "only-" + k;
        }, actionKey, 1);
        assertThat(id).isEqualTo("only-0");
        assertThat(asked).hasValue(1);

        String home = null;
        for (int i = 0; home == null; i++) {
            if (Partitioning.home("d-" + i, 12) == Partitioning.home(actionKey, 12)) {
                home = "d-" + i;
            }
        }
        String first = home;
        asked.set(0);
        assertThat(Partitioning.colocatedDecisionId(k -> {
            asked.incrementAndGet();
            return k == 0 ? first : "other-" + k;
        }, actionKey, 12)).isEqualTo(first);
        assertThat(asked).as("no candidate generated past one that fits").hasValue(1);
    }

    @Test
    void shouldGiveUpAfterABoundedNumberOfCandidatesAndKeepTheFirst() {
        String actionKey = "T-1/call-1";
        int target = Partitioning.home(actionKey, 12);
        String stuck = null;
        for (int i = 0; stuck == null; i++) {
            if (Partitioning.home("x-" + i, 12) != target) {
                stuck = "x-" + i;
            }
        }
        String away = stuck;
        List<Integer> asked = new ArrayList<>();
        // a candidate source that never leaves one wrong partition: the first candidate comes back, after 32 * 12 tries
        String id = Partitioning.colocatedDecisionId(k -> {
            asked.add(k);
            return away;
        }, actionKey, 12);

        assertThat(id).isEqualTo(away);
        assertThat(asked).hasSize(Partitioning.TRIES_PER_PARTITION * 12);
    }

    @Test
    void shouldTakeAboutAsManyRandomCandidatesAsThereArePartitions() {
        int partitions = 12;
        int total = 0;
        int rounds = 2_000;
        for (int i = 0; i < rounds; i++) {
            AtomicInteger asked = new AtomicInteger();
            String actionKey = "T-" + i + "/call";
            Partitioning.colocatedDecisionId(k -> {
                asked.incrementAndGet();
                return UUID.randomUUID().toString();
            }, actionKey, partitions);
            total += asked.get();
        }
        // geometric with p = 1/12: mean 12; 2,000 rounds keep the mean well inside [9, 15]
        assertThat(total / (double) rounds).isBetween(9.0, 15.0);
    }
}
