package io.actiongate.gate.internal;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The first node of an action-keyed input (proposals, outcomes, reconciliations): a record read by the task that
 * owns its key goes straight on to {@code local} (no copy, no extra write); a record a producer put on another
 * partition goes to {@code hop}, the sink of an internal topic partitioned by murmur2 of the key, and comes back
 * from that topic into the home task. Nothing is decoded here: the decision reads the key bytes only.
 */
public final class RouteProcessor implements Processor<byte[], byte[], byte[], byte[]> {

    private final Routing routing;
    private final String local;
    private final String hop;
    private final GroupCommits commits;
    private ProcessorContext<byte[], byte[]> context;
    private int current;

    public RouteProcessor(Routing routing, String local, String hop, GroupCommits commits) {
        this.routing = routing;
        this.local = local;
        this.hop = hop;
        this.commits = commits;
    }

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
        this.context = context;
        this.current = context.taskId().partition();
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        if (routing.takesHop(record.key(), record.value(), current)) {
            context.forward(record.withHeaders(here().stamp(record.headers())), hop);
        } else {
            context.forward(record, local);
        }
        commits.processed(context);
    }

    private Origin here() {
        return context.recordMetadata().map(m -> new Origin(m.topic(), m.partition(), m.offset()))
                .orElseThrow(() -> new IllegalStateException("a routed record has no source metadata"));
    }
}
