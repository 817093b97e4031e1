package io.actiongate.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import javax.net.ssl.SSLHandshakeException;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.junit.jupiter.api.Test;

class KafkaFailuresTest {

    @Test
    void shouldNameTheDeniedTopicAndOperation() {
        Exception e = new ExecutionException(new TopicAuthorizationException(Set.of("actiongate.decisions")));

        String line = KafkaFailures.describe(e, KafkaFailures.Access.WRITE);

        assertTrue(line.startsWith("authorization failed: this principal may not WRITE topic actiongate.decisions"),
                line);
    }

    @Test
    void shouldNameTheDeniedGroup() {
        String line = KafkaFailures.describe(new KafkaException("poll failed",
                GroupAuthorizationException.forGroupId("actiongate-executor")));

        assertTrue(line.contains("may not READ consumer group actiongate-executor"), line);
    }

    @Test
    void shouldNameTransactionalIdDenials() {
        String line = KafkaFailures.describe(new TransactionalIdAuthorizationException("denied"));

        assertTrue(line.contains("transactional id"), line);
    }

    @Test
    void shouldNameAFailedTlsHandshakeByItsRootCause() {
        SslAuthenticationException e = new SslAuthenticationException("SSL handshake failed",
                new SSLHandshakeException("PKIX path building failed"));

        String line = KafkaFailures.describe(new ExecutionException(e));

        assertTrue(line.startsWith("TLS handshake failed: PKIX path building failed"), line);
    }

    @Test
    void shouldNameFailedAuthentication() {
        String line = KafkaFailures.describe(new SaslAuthenticationException(
                "Authentication failed during authentication due to invalid credentials with SASL mechanism "
                        + "SCRAM-SHA-512"));

        assertTrue(line.startsWith("authentication failed: Authentication failed"), line);
    }

    @Test
    void shouldNameAMissingJaasConfigurationBehindTheClientsGenericMessage() {
        Exception e = new KafkaException("Failed to create new KafkaAdminClient",
                new IllegalArgumentException("Could not find a 'KafkaClient' entry in the JAAS configuration. "
                        + "System property 'java.security.auth.login.config' is not set"));

        String line = KafkaFailures.describe(e);

        assertTrue(line.startsWith("missing JAAS configuration: a SASL security.protocol needs sasl.jaas.config"),
                line);
    }

    @Test
    void shouldExplainAWrappedFailureOnceWithItsContext() {
        IllegalStateException wrapped = new IllegalStateException("cannot create topic x",
                new TopicAuthorizationException(Set.of("x")));
        IllegalStateException described = new IllegalStateException("cannot describe x: "
                + KafkaFailures.describe(new TopicAuthorizationException(Set.of("x")), KafkaFailures.Access.DESCRIBE),
                new TopicAuthorizationException(Set.of("x")));

        assertTrue(KafkaFailures.explain(wrapped).startsWith("cannot create topic x: authorization failed"));
        assertEquals(described.getMessage(), KafkaFailures.explain(described));
        assertTrue(KafkaFailures.explain(new KafkaException("Failed to construct kafka consumer",
                new SaslAuthenticationException("bad"))).startsWith("authentication failed: bad"));
    }

    @Test
    void shouldLeaveOtherFailuresToTheirOwnMessage() {
        TimeoutException e = new TimeoutException("Timed out waiting for a node assignment");

        assertEquals("Timed out waiting for a node assignment", KafkaFailures.describe(e));
        assertFalse(KafkaFailures.isSecurityFailure(e));
    }

    @Test
    void shouldTakeTheKafkaKeysOfTheFlatConfiguration() {
        Map<String, Object> client = KafkaClientSettings.from(Map.of("bootstrap.servers", "b:9093",
                "kafka.security.protocol", "SSL", "topic.prefix", "x."));

        assertEquals(Map.of("bootstrap.servers", "b:9093", "security.protocol", "SSL"), client);
    }
}
