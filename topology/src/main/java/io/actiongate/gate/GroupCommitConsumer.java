package io.actiongate.gate;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metrics.KafkaMetric;

import io.actiongate.gate.internal.GroupCommits;

/**
 * A stream thread's main consumer that tells {@link GroupCommits} what each poll returned and lets it shorten a poll
 * that a drained transaction waits for ({@link GroupCommits#pollTimeout}), that waits longer while nothing happens
 * (below), and otherwise does exactly what the consumer it wraps does. Made by {@link GateClientSupplier}.
 *
 * <p>An idle poll ({@link IdlePolls}): once the consumer's polls have returned nothing for a second, none of its
 * partitions is paused (no task restoring, no buffer full) and Kafka Streams asks for a blocking poll, the poll waits
 * up to {@code idlePoll} instead of {@code poll.ms}. A poll returns as soon as records arrive (the broker answers the
 * held fetch when they are appended or their transaction commits), so the first record after a quiet spell is not
 * kept waiting; what waits longer is what the thread does only between polls: its wall-clock punctuators (the gate's
 * timers, so {@code idlePoll} is at most half their interval), a task whose restoration ends during the poll, and a
 * close. An idle gate's stream thread then wakes twice a second instead of ten times.
 */
final class GroupCommitConsumer implements Consumer<byte[], byte[]> {

    private final Consumer<byte[], byte[]> delegate;
    private final GroupCommits commits;
    private final IdlePolls idle;

    /**
     * @param idlePoll how long a poll waits while nothing happens; no longer than Kafka Streams asks
     *                 ({@code poll.ms}) when that is not longer
     */
    GroupCommitConsumer(Consumer<byte[], byte[]> delegate, GroupCommits commits, Duration idlePoll) {
        this(delegate, commits, idlePoll, System::nanoTime);
    }

    GroupCommitConsumer(Consumer<byte[], byte[]> delegate, GroupCommits commits, Duration idlePoll,
                        LongSupplier nanoTime) {
        this.delegate = delegate;
        this.commits = commits;
        this.idle = new IdlePolls(idlePoll, nanoTime);
    }

    /**
     * Polls for what {@link GroupCommits} allows, or for the idle poll while nothing comes and no partition is paused.
     */
    @Override
    public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
        Duration wait = commits.pollTimeout(timeout);
        if (wait.equals(timeout) && idle.idle(timeout) && delegate.paused().isEmpty()) {
            wait = idle.idlePoll();
        }
        ConsumerRecords<byte[], byte[]> records = delegate.poll(wait);
        idle.polled(records);
        commits.polled(records, delegate::assignment);
        return records;
    }

    @Override
    public List<PartitionInfo> partitionsFor(String a) {
        return delegate.partitionsFor(a);
    }

    @Override
    public List<PartitionInfo> partitionsFor(String a, Duration b) {
        return delegate.partitionsFor(a, b);
    }

    @Override
    public Map<String, List<PartitionInfo>> listTopics() {
        return delegate.listTopics();
    }

    @Override
    public Map<String, List<PartitionInfo>> listTopics(Duration a) {
        return delegate.listTopics(a);
    }

    @Override
    public Map<MetricName, ? extends Metric> metrics() {
        return delegate.metrics();
    }

    @Override
    public Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> a) {
        return delegate.beginningOffsets(a);
    }

    @Override
    public Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> a, Duration b) {
        return delegate.beginningOffsets(a, b);
    }

    @Override
    public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> a) {
        return delegate.endOffsets(a);
    }

    @Override
    public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> a, Duration b) {
        return delegate.endOffsets(a, b);
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> a) {
        return delegate.committed(a);
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> a, Duration b) {
        return delegate.committed(a, b);
    }

    @Override
    public Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(Map<TopicPartition, Long> a) {
        return delegate.offsetsForTimes(a);
    }

    @Override
    public Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(Map<TopicPartition, Long> a, Duration b) {
        return delegate.offsetsForTimes(a, b);
    }

    @Override
    public OptionalLong currentLag(TopicPartition a) {
        return delegate.currentLag(a);
    }

    @Override
    public Set<String> subscription() {
        return delegate.subscription();
    }

    @Override
    public Set<TopicPartition> assignment() {
        return delegate.assignment();
    }

    @Override
    public Set<TopicPartition> paused() {
        return delegate.paused();
    }

    @Override
    public long position(TopicPartition a) {
        return delegate.position(a);
    }

    @Override
    public long position(TopicPartition a, Duration b) {
        return delegate.position(a, b);
    }

    @Override
    public ConsumerGroupMetadata groupMetadata() {
        return delegate.groupMetadata();
    }

    @Override
    public Uuid clientInstanceId(Duration a) {
        return delegate.clientInstanceId(a);
    }

    @Override
    public void assign(Collection<TopicPartition> a) {
        delegate.assign(a);
    }

    @Override
    public void close() {
        delegate.close();
    }

    /** Kafka Streams closes with {@code close(CloseOptions)}; this deprecated variant is delegated as it is. */
    @Deprecated
    @Override
    public void close(Duration a) {
        delegate.close(a);
    }

    @Override
    public void close(CloseOptions a) {
        delegate.close(a);
    }

    @Override
    public void commitAsync() {
        delegate.commitAsync();
    }

    @Override
    public void commitAsync(Map<TopicPartition, OffsetAndMetadata> a, OffsetCommitCallback b) {
        delegate.commitAsync(a, b);
    }

    @Override
    public void commitAsync(OffsetCommitCallback a) {
        delegate.commitAsync(a);
    }

    @Override
    public void commitSync() {
        delegate.commitSync();
    }

    @Override
    public void commitSync(Duration a) {
        delegate.commitSync(a);
    }

    @Override
    public void commitSync(Map<TopicPartition, OffsetAndMetadata> a) {
        delegate.commitSync(a);
    }

    @Override
    public void commitSync(Map<TopicPartition, OffsetAndMetadata> a, Duration b) {
        delegate.commitSync(a, b);
    }

    @Override
    public void enforceRebalance() {
        delegate.enforceRebalance();
    }

    @Override
    public void enforceRebalance(String a) {
        delegate.enforceRebalance(a);
    }

    @Override
    public void pause(Collection<TopicPartition> a) {
        delegate.pause(a);
    }

    @Override
    public void registerMetricForSubscription(KafkaMetric a) {
        delegate.registerMetricForSubscription(a);
    }

    @Override
    public void resume(Collection<TopicPartition> a) {
        delegate.resume(a);
    }

    @Override
    public void seek(TopicPartition a, long b) {
        delegate.seek(a, b);
    }

    @Override
    public void seek(TopicPartition a, OffsetAndMetadata b) {
        delegate.seek(a, b);
    }

    @Override
    public void seekToBeginning(Collection<TopicPartition> a) {
        delegate.seekToBeginning(a);
    }

    @Override
    public void seekToEnd(Collection<TopicPartition> a) {
        delegate.seekToEnd(a);
    }

    @Override
    public void subscribe(Collection<String> a) {
        delegate.subscribe(a);
    }

    @Override
    public void subscribe(Collection<String> a, ConsumerRebalanceListener b) {
        delegate.subscribe(a, b);
    }

    @Override
    public void subscribe(Pattern a) {
        delegate.subscribe(a);
    }

    @Override
    public void subscribe(Pattern a, ConsumerRebalanceListener b) {
        delegate.subscribe(a, b);
    }

    @Override
    public void subscribe(SubscriptionPattern a) {
        delegate.subscribe(a);
    }

    @Override
    public void subscribe(SubscriptionPattern a, ConsumerRebalanceListener b) {
        delegate.subscribe(a, b);
    }

    @Override
    public void unregisterMetricFromSubscription(KafkaMetric a) {
        delegate.unregisterMetricFromSubscription(a);
    }

    @Override
    public void unsubscribe() {
        delegate.unsubscribe();
    }

    @Override
    public void wakeup() {
        delegate.wakeup();
    }
}
