package io.actiongate.reconciler;

import io.actiongate.cli.DevComponent;
import io.actiongate.cli.DevContext;
import io.actiongate.connector.spi.ConnectorRegistry;

/**
 * The reconciler as an {@code actiongate dev} component: builds {@link ReconcilerConfig} and the configured
 * connectors from dev's flat configuration and starts one reconciler. Register it in
 * {@code DevComponents.defaults()} after the executor.
 */
public final class ReconcilerDevComponent implements DevComponent {

    @Override
    public String name() {
        return "reconciler";
    }

    @Override
    public AutoCloseable start(DevContext context) {
        ReconcilerConfig config = new ReconcilerConfig(context.config());
        ConnectorRegistry connectors = ConnectorRegistry.load(context.config());
        Reconciler reconciler;
        try {
            reconciler = Reconciler.start(config, connectors);
        } catch (RuntimeException e) {
            connectors.close();
            throw e;
        }
        context.hint("reconciler: group " + config.groupId() + ", at most " + config.maxLookups()
                + " lookup(s) per unknown outcome");
        return () -> {
            try {
                reconciler.close();
            } finally {
                connectors.close();
            }
        };
    }
}
