package io.actiongate.approver.decision;

import java.time.Instant;

import io.actiongate.avro.Decision;

/** Where signed decisions go: {@link DecisionPublisher} in the service, a recorder in tests. */
public interface DecisionSink {

    Decision publish(DecisionPublisher.Request request, Instant now) throws DecisionPublisher.PublishException;
}
