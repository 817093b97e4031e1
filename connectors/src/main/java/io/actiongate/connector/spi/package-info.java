/**
 * The connector SPI: everything a third party needs to add a provider to actiongate.
 *
 * <p>Implement {@link io.actiongate.connector.spi.ConnectorFactory}, list the class in
 * {@code META-INF/services/io.actiongate.connector.spi.ConnectorFactory}, and put the jar on the
 * classpath. {@link io.actiongate.connector.spi.ConnectorRegistry} finds it with {@link java.util.ServiceLoader}.
 *
 * <p>Contract (ARCHITECTURE.md sections 5 and 6): {@code classify} and {@code validate} are pure and
 * fail closed; {@code dispatch} makes at most one request and reports honestly whether anything may have
 * reached the provider; {@code lookup} never changes anything at the provider.
 */
package io.actiongate.connector.spi;
