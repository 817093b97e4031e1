package io.actiongate.key;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.IntFunction;

import org.apache.kafka.common.utils.Utils;

/**
 * Which gate task a keyed record belongs to (docs/contract.md section 2, "Partitioning is the gate's job"):
 * partition {@code toPositive(murmur2(utf8(key))) % N}, Java's default for keyed records, with {@code N} the common
 * partition count of the gate's four inputs. The gate's routing, the benchmark and the decision ids that
 * actiongate's own approvers choose all compute it here.
 *
 * <p>A decision is claimed in the task that owns its {@code decision_id} (single use across the deployment) and
 * applied in the task that owns its action key. When both are the same task the decision takes no internal hop:
 * {@link #colocatedDecisionId} picks such an id.
 */
public final class Partitioning {

    /**
     * Candidates tried per partition before {@link #colocatedDecisionId} gives up: the chance that none of
     * {@code 32 * N} uniformly spread ids lands on one given partition of {@code N} is below {@code e^-32}.
     */
    static final int TRIES_PER_PARTITION = 32;

    private Partitioning() {
    }

    /** The partition of the serialized key {@code key} among {@code partitions}. */
    public static int home(byte[] key, int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be at least 1, was " + partitions);
        }
        return Utils.toPositive(Utils.murmur2(key)) % partitions;
    }

    /** The partition of {@code key} (its UTF-8 bytes) among {@code partitions}. */
    public static int home(String key, int partitions) {
        return home(key.getBytes(StandardCharsets.UTF_8), partitions);
    }

    /**
     * The first of {@code candidates.apply(0)}, {@code candidates.apply(1)}, ... whose partition equals
     * {@code actionKey}'s among {@code partitions}, so that the gate claims and applies the decision in the task it
     * is read by, with no internal hop. Each candidate must be a fresh, unguessable id as a decision id always is;
     * this only chooses among them (on average {@code partitions} tries, each a murmur2 of the id). With one
     * partition, or when no candidate of the first {@code 32 * partitions} fits, the first candidate is returned:
     * the decision is then as correct as any other, it only takes the hops.
     */
    public static String colocatedDecisionId(IntFunction<String> candidates, String actionKey, int partitions) {
        Objects.requireNonNull(candidates, "candidates");
        String first = Objects.requireNonNull(candidates.apply(0), "candidate 0");
        if (partitions <= 1) {
            return first;
        }
        int target = home(actionKey, partitions);
        if (home(first, partitions) == target) {
            return first;
        }
        int tries = TRIES_PER_PARTITION * partitions;
        for (int i = 1; i < tries; i++) {
            String candidate = Objects.requireNonNull(candidates.apply(i), "candidate");
            if (home(candidate, partitions) == target) {
                return candidate;
            }
        }
        return first;
    }
}
