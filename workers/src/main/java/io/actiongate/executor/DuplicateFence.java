package io.actiongate.executor;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

import org.apache.kafka.common.TopicPartition;

import io.actiongate.avro.AttemptReservation;
import io.actiongate.key.ActionKey;

/**
 * The (action key, attempt) of the last {@code records} reservations the executor read from each of its partitions,
 * and the offset each was first read at. The gate reserves each attempt of an action once, so a second reservation
 * of the same attempt is never dispatched: whatever wrote it (a gate state rolled back behind a reservation it had
 * published, as a broker's hanging transaction can do; a replayed or hand-written record on {@code attempts}), the
 * first one was already committed past, hence dispatched or answered. Poll thread only.
 */
final class DuplicateFence {

    private final int records;
    private final Map<TopicPartition, LinkedHashMap<String, Long>> seen = new HashMap<>();

    /** Remembers the last {@code records} reservations per partition; 0 remembers none (no fence). */
    DuplicateFence(int records) {
        this.records = records;
    }

    int records() {
        return records;
    }

    /** What the fence tells reservations apart by: the action key and the attempt. */
    static String attemptKey(AttemptReservation reservation) {
        return ActionKey.format(reservation.getTaskId(), reservation.getToolCallId()) + "#" + reservation.getAttempt();
    }

    /** Where {@code attemptKey} was first read on {@code partition}, if it is remembered. */
    OptionalLong firstSeen(TopicPartition partition, String attemptKey) {
        LinkedHashMap<String, Long> of = seen.get(partition);
        Long offset = of == null ? null : of.get(attemptKey);
        return offset == null ? OptionalLong.empty() : OptionalLong.of(offset);
    }

    /** Remembers {@code attemptKey} read at {@code offset}; the oldest entry of the partition goes beyond the bound. */
    void remember(TopicPartition partition, String attemptKey, long offset) {
        if (records == 0) {
            return;
        }
        seen.computeIfAbsent(partition, p -> new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
                return size() > records;
            }
        }).putIfAbsent(attemptKey, offset);
    }

    /** Forgets a partition this executor no longer holds; a new assignment reads its history again. */
    void forget(TopicPartition partition) {
        seen.remove(partition);
    }
}
