package io.actiongate.connector.mcp;

import io.actiongate.connector.spi.Connector;
import io.actiongate.connector.spi.ConnectorContext;
import io.actiongate.connector.spi.ConnectorFactory;
import io.actiongate.connector.spi.OperationClassifier;

/**
 * {@code connectors.mcp.*}: the tools of upstream MCP servers, each its own operation {@code UPSTREAM/TOOL}
 * (docs/contract.md, "MCP upstreams"; settings in connectors/README.md).
 */
public final class McpConnectorFactory implements ConnectorFactory {

    public static final String PROVIDER = "mcp";

    @Override
    public String provider() {
        return PROVIDER;
    }

    @Override
    public Connector create(ConnectorContext context) {
        return new McpConnector(McpSettings.from(context, true));
    }

    @Override
    public OperationClassifier classifier(ConnectorContext context) {
        return new McpClassifier(McpSettings.from(context, false));
    }
}
