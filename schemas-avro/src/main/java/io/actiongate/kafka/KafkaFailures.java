package io.actiongate.kafka;

import java.util.Locale;
import java.util.Optional;

import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;

/**
 * One line that names why a Kafka client failed, for an operator who did not ask for {@code --verbose}: a missing
 * JAAS configuration, a failed TLS handshake, failed authentication, or a denied operation with the topic, group
 * or transactional id it was denied on. The line never contains a configuration value (a password, a JAAS line):
 * only the client's own message, which Kafka keeps free of secrets, and the names of resources.
 */
public final class KafkaFailures {

    private static final int MAX_DEPTH = 12;

    private KafkaFailures() {
    }

    /** What the failed client was doing, so a denied topic can be reported with its operation. */
    public enum Access {
        READ, WRITE, DESCRIBE, CREATE, ACCESS
    }

    /** {@link #describe(Throwable, Access)} with the topic operation unknown. */
    public static String describe(Throwable error) {
        return describe(error, Access.ACCESS);
    }

    /**
     * The security cause of {@code error} when it has one (see {@link #securityCause}), else its own first line.
     * {@code topicAccess} is what the client did to topics, reported when a topic was denied.
     */
    public static String describe(Throwable error, Access topicAccess) {
        io.actiongate.serde.UnknownFormatException newer = io.actiongate.serde.UnknownFormatException.in(error);
        if (newer != null) {
            return newer.getMessage(); // the one line a role stops with on a version it does not read
        }
        return securityCause(error, topicAccess).orElseGet(() -> firstLine(error));
    }

    /** The cause as one line when {@code error} (or one of its causes) is a security failure; empty otherwise. */
    public static Optional<String> securityCause(Throwable error, Access topicAccess) {
        Throwable t = error;
        for (int depth = 0; t != null && depth < MAX_DEPTH; depth++, t = t.getCause()) {
            Optional<String> found = of(t, topicAccess);
            if (found.isPresent()) {
                return found;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return Optional.empty();
    }

    /** The lines this class writes start with one of these; a message holding one already names its cause. */
    private static final java.util.List<String> MARKERS = java.util.List.of("authorization failed:",
            "authentication failed:", "TLS handshake failed:", "TLS configuration failed:",
            "missing JAAS configuration:");

    /**
     * One line for an operator: {@code error}'s own first line when it already names its security cause (a message
     * built with {@link #describe}); the security cause alone when {@code error} is the Kafka client's own exception
     * (its text, e.g. "Failed to create new KafkaAdminClient", says nothing); else the message and the cause.
     */
    public static String explain(Throwable error) {
        String own = firstLine(error);
        if (MARKERS.stream().anyMatch(own::contains)) {
            return own;
        }
        Optional<String> cause = securityCause(error, Access.ACCESS);
        if (cause.isEmpty()) {
            return own;
        }
        return error instanceof org.apache.kafka.common.KafkaException ? cause.get() : own + ": " + cause.get();
    }

    /** Whether {@code error} is one that retrying cannot fix: authentication, authorization, TLS, JAAS. */
    public static boolean isSecurityFailure(Throwable error) {
        return securityCause(error, Access.ACCESS).isPresent();
    }

    private static Optional<String> of(Throwable t, Access topicAccess) {
        if (t instanceof TopicAuthorizationException e) {
            String topics = e.unauthorizedTopics().isEmpty() ? "(not named by the broker)"
                    : String.join(", ", new java.util.TreeSet<>(e.unauthorizedTopics()));
            String operation = topicAccess == Access.ACCESS ? "DESCRIBE/READ/WRITE" : topicAccess.name();
            return Optional.of("authorization failed: this principal may not " + operation + " topic " + topics
                    + " (grant the role's ACLs: actiongate acls --role ROLE --principal P)");
        }
        if (t instanceof GroupAuthorizationException e) {
            String group = e.groupId() == null ? "(not named by the broker)" : e.groupId();
            return Optional.of("authorization failed: this principal may not READ consumer group " + group
                    + " (grant the role's ACLs: actiongate acls --role ROLE --principal P)");
        }
        if (t instanceof TransactionalIdAuthorizationException) {
            return Optional.of("authorization failed: this principal may not WRITE its transactional id (ACL on "
                    + "TransactionalId, prefixed with the application id; see actiongate acls --role gate)");
        }
        if (t instanceof ClusterAuthorizationException e) {
            return Optional.of("authorization failed: cluster operation denied (" + firstLine(e) + ")");
        }
        if (t instanceof AuthorizationException e) {
            return Optional.of("authorization failed: " + firstLine(e));
        }
        if (t instanceof SslAuthenticationException e) {
            return Optional.of("TLS handshake failed: " + deepest(e)
                    + " (check ssl.truststore.* and, for mTLS, ssl.keystore.*)");
        }
        if (t instanceof SaslAuthenticationException e) {
            return Optional.of("authentication failed: " + firstLine(e)
                    + " (check sasl.mechanism and the user name and password in sasl.jaas.config)");
        }
        if (t instanceof AuthenticationException e) {
            return Optional.of("authentication failed: " + firstLine(e));
        }
        String message = t.getMessage();
        if (message != null) {
            String lower = message.toLowerCase(Locale.ROOT);
            if (lower.contains("jaas")) {
                return Optional.of("missing JAAS configuration: a SASL security.protocol needs sasl.jaas.config "
                        + "(kafka.sasl.jaas.config, ACTIONGATE_KAFKA_SASL_JAAS_CONFIG or --kafka-config); the client "
                        + "said: " + firstLine(t));
            }
            if (lower.contains("ssl") && (lower.contains("keystore") || lower.contains("truststore"))) {
                return Optional.of("TLS configuration failed: " + firstLine(t));
            }
        }
        return Optional.empty();
    }

    private static String deepest(Throwable error) {
        Throwable t = error;
        for (int depth = 0; t.getCause() != null && t.getCause() != t && depth < MAX_DEPTH; depth++) {
            t = t.getCause();
        }
        return firstLine(t);
    }

    /** The first line of the message, or the exception's simple name when it has none. */
    static String firstLine(Throwable t) {
        String message = t.getMessage();
        if (message == null || message.isBlank()) {
            return t.getClass().getSimpleName();
        }
        int newline = message.indexOf('\n');
        return (newline < 0 ? message : message.substring(0, newline)).trim();
    }
}
