package io.actiongate.executor;

import io.actiongate.cli.DevComponent;
import io.actiongate.cli.DevContext;
import io.actiongate.connector.spi.ConnectorRegistry;

/**
 * The executor as an {@code actiongate dev} component: builds {@link ExecutorConfig} and the configured connectors
 * ({@code connectors.<provider>.*}) from dev's flat configuration and starts one executor. Register it in
 * {@code DevComponents.defaults()} after the gate.
 */
public final class ExecutorDevComponent implements DevComponent {

    @Override
    public String name() {
        return "executor";
    }

    @Override
    public AutoCloseable start(DevContext context) {
        ExecutorConfig config = new ExecutorConfig(context.config());
        ConnectorRegistry connectors = ConnectorRegistry.load(context.config());
        Executor executor;
        try {
            executor = Executor.start(config, connectors);
        } catch (RuntimeException e) {
            connectors.close();
            throw e;
        }
        context.hint("executor: group " + config.groupId() + ", connectors " + connectors.providers());
        return () -> {
            try {
                executor.close();
            } finally {
                connectors.close();
            }
        };
    }
}
