package io.actiongate.gate.internal;

import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Group commit: a stream thread commits as soon as it has processed every record its consumer returned, instead of
 * waiting for its next {@code commit.interval.ms}. What the gate writes (a reservation, a receipt, a record on a hop)
 * becomes readable only when the transaction commits, so every waiting tool host, executor and hop waits for that
 * commit; a commit as soon as the input is drained makes that wait one commit, not an interval. Under load the
 * records that arrive while a transaction commits are fetched by the next poll and committed together: a commit then
 * covers everything that arrived during the previous one, so the batch grows with the load and the number of commits
 * per second stays bounded by how long one takes. {@code commit.interval.ms} still commits a thread that never drains
 * (a backlog).
 *
 * <p>How it knows the input is drained: the gate's consumer ({@link GateClientSupplier}) reports, for every poll on
 * a stream thread, the last offset it returned per partition ({@link #polled}); the first processor of every input
 * and of every hop reports each record once the whole topology is done with it ({@link #processed}). When no
 * partition has a polled record left unprocessed, the record just finished was the last one polled. Partitions the
 * thread no longer owns are forgotten at the next poll.
 *
 * <p>Then it looks once more before it commits: the thread's next poll does not block ({@link #pollTimeout}) and only
 * collects what its consumer already has. A poll brings what arrived up to the moment the broker answered the fetch
 * before it; what arrived after that (most of what arrives while a transaction commits) is fetched only by the fetch
 * that poll sends, and its answer is read only by the next poll, after the next commit, so it would wait for two
 * commits instead of one. When that look brings nothing, the processor's request for a commit
 * ({@link ProcessorContext#commit()}) is made then, and the thread commits right after that poll; when it brings
 * records, they join the transaction, which commits as soon as they are drained (one look per transaction, so a
 * steady stream cannot keep a transaction open). The rule decides only <em>when</em> a transaction commits,
 * never what it holds: records, changelog writes and offsets still commit together or not at all, so a wrong guess
 * costs a commit, never a record. Without the gate's consumer (a {@code TopologyTestDriver}) nothing is tracked and
 * every record asks.
 *
 * <p>State is per stream thread: a thread's consumer and its processors run on that thread.
 */
public final class GroupCommits {

    /** Never asks: only {@code commit.interval.ms} commits. */
    public static final GroupCommits OFF = new GroupCommits(false);

    private final boolean enabled;
    private final ThreadLocal<State> states = ThreadLocal.withInitial(State::new);

    /**
     * A polled record not processed after this long is taken as one Kafka Streams dropped or will not hand over soon
     * (its task closed, its partition paused behind a full buffer): the thread stops waiting for it, and the next
     * processed record asks for a commit, as an undrained thread's {@code commit.interval.ms} would anyway.
     */
    static final long STALE_NANOS = 500_000_000L;

    private static final class State {
        /** Per partition, the last offset a poll returned that has not been processed yet. */
        final Map<TopicPartition, Long> unprocessed = new HashMap<>();
        /** When {@link #unprocessed} last went from empty to not empty. */
        long since;
        /** A poll was reported on this thread: its consumer is the gate's, and it will poll again. */
        boolean polling;
        /** Drained: the commit request waits for one more poll, made when that poll brings nothing. */
        Runnable deferred;
        /** That poll brought records: they joined this transaction, whose next drain commits at once. */
        boolean lookedAgain;
    }

    private GroupCommits(boolean enabled) {
        this.enabled = enabled;
    }

    /** Commits on drained input; {@link #OFF} when {@code enabled} is false. */
    public static GroupCommits of(boolean enabled) {
        return enabled ? new GroupCommits(true) : OFF;
    }

    public boolean enabled() {
        return enabled;
    }

    /**
     * The consumer of this stream thread returned {@code records}; {@code assignment} is what the thread owns now
     * (asked only when an earlier poll left records unprocessed, e.g. of a partition since revoked).
     */
    public void polled(ConsumerRecords<byte[], byte[]> records, Supplier<Set<TopicPartition>> assignment) {
        if (!enabled) {
            return;
        }
        State state = states.get();
        state.polling = true;
        Runnable deferred = state.deferred;
        if (deferred != null) {
            state.deferred = null;
            state.lookedAgain = !records.isEmpty();
            if (records.isEmpty()) {
                request(deferred);
            }
        }
        if (!state.unprocessed.isEmpty()) {
            Set<TopicPartition> owned = assignment.get();
            for (Iterator<TopicPartition> it = state.unprocessed.keySet().iterator(); it.hasNext(); ) {
                if (!owned.contains(it.next())) {
                    it.remove(); // its buffered records were dropped with the task
                }
            }
        }
        if (records.isEmpty()) {
            return;
        }
        if (state.unprocessed.isEmpty()) {
            state.since = System.nanoTime();
        }
        for (TopicPartition partition : records.partitions()) {
            List<ConsumerRecord<byte[], byte[]>> list = records.records(partition);
            if (!list.isEmpty()) {
                state.unprocessed.put(partition, list.get(list.size() - 1).offset());
            }
        }
    }

    /**
     * The topology is done with the input record {@code context} holds: when it was the last one polled, ask for a
     * commit, at once when this transaction has looked once more already (or nothing reports polls), otherwise when
     * the thread's next poll brings nothing.
     */
    public void processed(ProcessorContext<?, ?> context) {
        if (!enabled) {
            return;
        }
        State state = states.get();
        if (!state.unprocessed.isEmpty()) {
            RecordMetadata m = context.recordMetadata().orElse(null);
            if (m != null) {
                TopicPartition partition = new TopicPartition(m.topic(), m.partition());
                Long last = state.unprocessed.get(partition);
                if (last != null && m.offset() >= last) {
                    state.unprocessed.remove(partition);
                }
            }
            if (!state.unprocessed.isEmpty()) {
                if (System.nanoTime() - state.since < STALE_NANOS) {
                    return;
                }
                state.unprocessed.clear();
            }
        }
        if (state.polling && !state.lookedAgain) {
            state.deferred = context::commit;
            return;
        }
        state.lookedAgain = false;
        context.commit();
    }

    /**
     * How long this thread's next poll may block: not at all while a drained transaction waits for it to look once
     * more, otherwise {@code requested}.
     */
    public Duration pollTimeout(Duration requested) {
        return enabled && states.get().deferred != null ? Duration.ZERO : requested;
    }

    private static void request(Runnable commit) {
        try {
            commit.run();
        } catch (UnsupportedOperationException e) {
            // the task became a standby during that poll (a rebalance): it has nothing to commit
        }
    }
}
