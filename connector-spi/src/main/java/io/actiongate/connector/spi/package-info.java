/**
 * The connector SPI: everything a third party needs to add a provider to actiongate.
 *
 * <p>Implement {@link io.actiongate.connector.spi.ConnectorFactory}, list the class in
 * {@code META-INF/services/io.actiongate.connector.spi.ConnectorFactory}, and put the jar on the
 * classpath. {@link io.actiongate.connector.spi.ConnectorRegistry} finds it with {@link java.util.ServiceLoader}.
 *
 * <p>A {@link io.actiongate.connector.spi.Connector} <em>has</em> an
 * {@link io.actiongate.connector.spi.OperationClassifier} ({@code classifier()}); it does not forward one.
 *
 * <p>Stability: the SPI is {@link io.actiongate.connector.spi.Incubating}: its shape may still change in a minor
 * release, each change with a CHANGELOG entry that says how to move a connector.
 *
 * <p>Contract (docs/contract.md sections 4, 5 and 6): {@code classify} and {@code validate} are pure and
 * fail closed; {@code dispatch} makes at most one request, reports honestly whether anything may have
 * reached the provider, and says SUCCEEDED only for an answer that passes its domain checks; {@code lookup} never
 * changes anything at the provider.
 *
 * <p>The gate holds only the {@link io.actiongate.connector.spi.OperationClassifier} half of each connector, built by
 * {@link io.actiongate.connector.spi.ConnectorFactory#classifier} without credentials
 * ({@link io.actiongate.connector.spi.ConnectorRegistry#classifiers}). The abstract
 * {@code io.actiongate.connector.testing.ConnectorContract} in the connectors tests jar checks all of this.
 */
@Incubating
package io.actiongate.connector.spi;
