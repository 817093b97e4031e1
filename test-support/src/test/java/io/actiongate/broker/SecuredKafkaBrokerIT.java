package io.actiongate.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.actiongate.testing.KafkaBrokerExtension;
import io.actiongate.testing.TestNames;
import io.actiongate.testing.TestPki;

class SecuredKafkaBrokerIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.secured();

    @Test
    void shouldLetAScramPrincipalWriteOnlyWhereAnAclAllowsIt(TestInfo test) throws Exception {
        String allowed = TestNames.topicPrefix(test) + "allowed";
        String denied = TestNames.topicPrefix(test) + "denied";
        KAFKA.admin().createTopics(List.of(new NewTopic(allowed, 1, (short) 1), new NewTopic(denied, 1, (short) 1)))
                .all().get(30, TimeUnit.SECONDS);
        Map<String, Object> writer = KAFKA.scramClient("writer");
        KAFKA.admin().createAcls(List.of(new AclBinding(new ResourcePattern(ResourceType.TOPIC, allowed,
                PatternType.LITERAL), new AccessControlEntry("User:writer", "*", AclOperation.WRITE,
                AclPermissionType.ALLOW)))).all().get(30, TimeUnit.SECONDS);

        try (KafkaProducer<String, String> producer = producer(writer)) {
            producer.send(new ProducerRecord<>(allowed, "k", "v")).get(30, TimeUnit.SECONDS);
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>(denied, "k", "v")).get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
    }

    @Test
    void shouldIdentifyAnMtlsClientByItsCertificatesCommonName(TestInfo test) throws Exception {
        String prefix = TestNames.topicPrefix(test);
        KAFKA.admin().createAcls(List.of(new AclBinding(new ResourcePattern(ResourceType.TOPIC, prefix + "mine",
                PatternType.LITERAL), new AccessControlEntry("User:maker", "*", AclOperation.CREATE,
                AclPermissionType.ALLOW)))).all().get(30, TimeUnit.SECONDS);

        try (Admin admin = Admin.create(timeouts(KAFKA.tlsClient("maker")))) {
            admin.createTopics(List.of(new NewTopic(prefix + "mine", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            // no ACL for this one: denied, not allowed by default
            assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic(prefix + "other", 1, (short) 1))).all()
                    .get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
    }

    @Test
    void shouldRejectAWrongScramPassword() {
        KAFKA.scramClient("victim");
        try (Admin admin = Admin.create(timeouts(KAFKA.scramClient("victim", "not-the-password")))) {
            assertThatThrownBy(() -> admin.describeCluster().nodes().get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(SaslAuthenticationException.class);
        }
    }

    @Test
    void shouldRejectAClientThatDoesNotTrustTheBrokersCa() {
        Map<String, Object> props = timeouts(KAFKA.tlsClient("stranger"));
        TestPki other = TestPki.create(KAFKA.pki().truststore().getParent().resolve("other"));
        props.put("ssl.truststore.location", other.truststore().toString());
        props.put("ssl.truststore.password", other.password());
        try (Admin admin = Admin.create(props)) {
            assertThatThrownBy(() -> admin.describeCluster().nodes().get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(SslAuthenticationException.class);
        }
    }

    private static Map<String, Object> timeouts(Map<String, Object> props) {
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        return props;
    }

    private static KafkaProducer<String, String> producer(Map<String, Object> props) {
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }
}
