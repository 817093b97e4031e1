package io.actiongate.approver.decision;

import java.time.Instant;

import io.actiongate.avro.Decision;

/** Where signed decisions go: {@link DecisionPublisher} in the service, a recorder in tests. */
public interface DecisionSink {

    Decision publish(DecisionPublisher.Request request, Instant now) throws DecisionPublisher.PublishException;

    /**
     * The partition count of the decisions topic, so that the service can choose decision ids the gate claims in
     * the action's own task ({@link io.actiongate.key.Partitioning#colocatedDecisionId}); 1 when not known, which
     * chooses nothing (the decision is as valid, it only takes the gate's internal hops).
     */
    default int partitions() {
        return 1;
    }
}
