package io.actiongate.mcp;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;

/**
 * Starts the {@code mcp-gateway} role on its own: {@code McpGatewayMain CONFIG.properties}. Environment variables
 * {@code ACTIONGATE_X_Y} override key {@code x.y} ({@code __} is {@code -}), as for the other roles. {@code actiongate run
 * --roles=mcp-gateway} starts the same gateway inside a node.
 */
public final class McpGatewayMain {

    private McpGatewayMain() {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        if (args.length != 1) {
            System.err.println("usage: McpGatewayMain CONFIG.properties");
            System.exit(2);
        }
        Properties properties = new Properties();
        try (Reader r = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.UTF_8)) {
            properties.load(r);
        }
        Map<String, String> config = new HashMap<>();
        properties.stringPropertyNames().forEach(k -> config.put(k, properties.getProperty(k)));
        System.getenv().forEach((k, v) -> {
            if (k.startsWith("ACTIONGATE_")) {
                // the mapping every role uses: '_' is '.', '__' is '-'
                config.put(k.substring("ACTIONGATE_".length()).toLowerCase(java.util.Locale.ROOT)
                        .replace("__", "\u0000").replace('_', '.').replace('\u0000', '-'), v);
            }
        });
        McpGateway gateway = McpGateway.start(GatewayConfig.from(config),
                io.actiongate.runtime.HttpLimits.from(config, McpGateway.LIMITS_PREFIX));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            gateway.close();
            stopped.countDown();
        }));
        stopped.await();
    }
}
