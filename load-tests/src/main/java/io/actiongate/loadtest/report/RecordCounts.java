package io.actiongate.loadtest.report;

import java.util.List;

/** The records actiongate wrote per action and topic, as {@code RecordBudget} counts them on the broker. */
public final class RecordCounts {

    private RecordCounts() {
    }

    /**
     * What one topic took during the burst.
     *
     * @param kind        {@code contract} (a topic of docs/contract.md), {@code changelog}, {@code repartition} or
     *                    {@code internal} (other Streams topics), or {@code input} (the proposals topic, which the
     *                    benchmark's client writes; only what actiongate wrote beyond that is counted)
     * @param offsets     how far the log end offsets moved, summed over the partitions
     * @param records     committed records actiongate wrote (read_committed)
     * @param uncommitted records readable with read_uncommitted (committed + aborted)
     * @param keyBytes    summed serialized key sizes of the committed records
     * @param valueBytes  summed serialized value sizes plus header keys and values of the committed records
     */
    public record TopicCount(String topic, String kind, int partitions, long offsets, long records, long uncommitted,
                      long keyBytes, long valueBytes) {

        /** Transaction control markers: offsets that hold no record. */
        public long markers() {
            return offsets - uncommitted;
        }

        public long aborted() {
            return Math.max(0, uncommitted - records);
        }

        public double bytesPerRecord() {
            return records == 0 ? 0 : (double) (keyBytes + valueBytes) / records;
        }

        public double keyBytesPerRecord() {
            return records == 0 ? 0 : (double) keyBytes / records;
        }

        public double valueBytesPerRecord() {
            return records == 0 ? 0 : (double) valueBytes / records;
        }
    }

    /** The budget of {@code actions} actions over every topic that moved. */
    public record Budget(int actions, List<TopicCount> topics) {

        public Budget {
            topics = List.copyOf(topics);
        }

        /** Topics actiongate wrote records to (markers alone do not count). */
        public List<TopicCount> written() {
            return topics.stream().filter(t -> t.records() > 0).toList();
        }

        public double recordsPerAction() {
            return (double) topics.stream().mapToLong(TopicCount::records).sum() / actions;
        }

        public double markersPerAction() {
            return (double) topics.stream().mapToLong(TopicCount::markers).sum() / actions;
        }

        public double bytesPerAction() {
            return (double) topics.stream().mapToLong(t -> t.keyBytes() + t.valueBytes()).sum() / actions;
        }

        public long aborted() {
            return topics.stream().mapToLong(TopicCount::aborted).sum();
        }

        public double perAction(TopicCount t) {
            return (double) t.records() / actions;
        }
    }
}
