package io.actiongate.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;

import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.junit.jupiter.api.Test;

class GateStreamsFailureTest {

    @Test
    void shouldReplaceAStreamThreadThatFailedForAnOrdinaryReason() {
        assertThat(GateStreams.uncaught(new StreamsException("store closed")))
                .isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
    }

    @Test
    void shouldStopTheGateWhenAnAclIsMissingOrAuthenticationFails() {
        // a new thread would be denied the same way, forever: stop, so that run exits naming the cause
        assertThat(GateStreams.uncaught(new StreamsException("send failed",
                new TopicAuthorizationException(Set.of("actiongate.receipts")))))
                .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
        assertThat(GateStreams.uncaught(GroupAuthorizationException.forGroupId("actiongate-gate")))
                .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
        assertThat(GateStreams.uncaught(new SaslAuthenticationException("bad password")))
                .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
    }
}
