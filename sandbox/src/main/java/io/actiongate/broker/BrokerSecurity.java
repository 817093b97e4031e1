package io.actiongate.broker;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Makes an {@link EmbeddedKafkaBroker} a secured one, as a production cluster is: a {@code SASL_SSL} client
 * listener with SCRAM-SHA-512, an mTLS ({@code SSL}, client certificate required) client listener, TLS on the
 * controller and inter-broker listeners, KRaft's {@code StandardAuthorizer} with
 * {@code allow.everyone.if.no.acl.found=false}: a principal can do exactly what its ACLs allow.
 *
 * <p>Principals: SCRAM users are {@code User:NAME}; a TLS client is {@code User:CN} of its certificate's subject
 * ({@code ssl.principal.mapping.rules}). The broker's own certificate (its keystore) is a super user, so the broker
 * talks to itself and {@link EmbeddedKafkaBroker#superUserClientProperties()} administers it over mTLS.
 *
 * @param keystore     PKCS12 keystore with the broker's key and certificate (SAN {@code IP:127.0.0.1})
 * @param truststore   PKCS12 truststore with the CA that signed the broker's and the clients' certificates
 * @param password     the password of both stores
 * @param brokerCn     the CN of the broker certificate's subject: its principal, made a super user
 * @param superUsers   further super users, e.g. {@code User:admin}
 */
public record BrokerSecurity(Path keystore, Path truststore, String password, String brokerCn,
                             List<String> superUsers) {

    public static final String SASL_SSL_LISTENER = "SASL_SSL";
    public static final String MTLS_LISTENER = "SSL";
    public static final String SCRAM_MECHANISM = "SCRAM-SHA-512";
    /** {@code CN=name,OU=...} becomes {@code name}; anything else stays the full DN. */
    public static final String PRINCIPAL_MAPPING_RULES = "RULE:^CN=([^,]+).*$/$1/,DEFAULT";

    public BrokerSecurity {
        Objects.requireNonNull(keystore, "keystore");
        Objects.requireNonNull(truststore, "truststore");
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(brokerCn, "brokerCn");
        superUsers = List.copyOf(superUsers);
    }

    /** The broker settings of the secured listeners on {@code saslPort}, {@code mtlsPort} and the controller port. */
    Map<String, String> brokerProperties(int saslPort, int mtlsPort, int controllerPort) {
        String host = Ports.LOOPBACK;
        String controller = EmbeddedKafkaBroker.CONTROLLER_LISTENER;
        Map<String, String> p = new LinkedHashMap<>();
        p.put("listeners", SASL_SSL_LISTENER + "://" + host + ":" + saslPort + "," + MTLS_LISTENER + "://" + host + ":"
                + mtlsPort + "," + controller + "://" + host + ":" + controllerPort);
        p.put("advertised.listeners", SASL_SSL_LISTENER + "://" + host + ":" + saslPort + "," + MTLS_LISTENER + "://"
                + host + ":" + mtlsPort);
        p.put("listener.security.protocol.map", SASL_SSL_LISTENER + ":SASL_SSL," + MTLS_LISTENER + ":SSL,"
                + controller + ":SSL");
        p.put("inter.broker.listener.name", MTLS_LISTENER);

        p.put("ssl.keystore.type", "PKCS12");
        p.put("ssl.keystore.location", keystore.toString());
        p.put("ssl.keystore.password", password);
        p.put("ssl.key.password", password);
        p.put("ssl.truststore.type", "PKCS12");
        p.put("ssl.truststore.location", truststore.toString());
        p.put("ssl.truststore.password", password);
        p.put("ssl.client.auth", "required");
        p.put("listener.name." + SASL_SSL_LISTENER.toLowerCase(java.util.Locale.ROOT) + ".ssl.client.auth", "none");
        p.put("ssl.principal.mapping.rules", PRINCIPAL_MAPPING_RULES);

        p.put("sasl.enabled.mechanisms", SCRAM_MECHANISM);
        p.put("listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required;");

        p.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        p.put("allow.everyone.if.no.acl.found", "false");
        StringBuilder supers = new StringBuilder("User:" + brokerCn);
        superUsers.forEach(u -> supers.append(';').append(u));
        p.put("super.users", supers.toString());
        return p;
    }

    /** Client settings that authenticate as the broker's own principal (a super user) over the mTLS listener. */
    Map<String, Object> superUserClientProperties(String mtlsBootstrap) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("bootstrap.servers", mtlsBootstrap);
        p.put("security.protocol", "SSL");
        p.put("ssl.keystore.type", "PKCS12");
        p.put("ssl.keystore.location", keystore.toString());
        p.put("ssl.keystore.password", password);
        p.put("ssl.key.password", password);
        p.put("ssl.truststore.type", "PKCS12");
        p.put("ssl.truststore.location", truststore.toString());
        p.put("ssl.truststore.password", password);
        return p;
    }
}
