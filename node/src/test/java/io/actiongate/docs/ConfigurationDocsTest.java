package io.actiongate.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

import io.actiongate.config.CommonConfig;
import io.actiongate.executor.ExecutorConfig;
import io.actiongate.gate.GateConfig;
import io.actiongate.http.HttpServerConfig;
import io.actiongate.http.ProposalApiConfig;
import io.actiongate.node.NodeConfig;
import io.actiongate.reconciler.ReconcilerConfig;

/**
 * Every configuration key that actiongate defines is documented, by its exact name, in the README or a page of
 * {@code docs/} (the keys sit beside the prose of their role: docs/operating.md, docs/tool-hosts.md).
 */
class ConfigurationDocsTest {

    @Test
    void shouldDocumentEveryConfigurationKeyInTheDocumentation() throws IOException {
        String docs = documentation();
        List<String> keys = new ArrayList<>();
        for (ConfigDef def : List.of(CommonConfig.configDef(), GateConfig.CONFIG_DEF, ExecutorConfig.CONFIG,
                ReconcilerConfig.CONFIG, NodeConfig.DEF)) {
            keys.addAll(def.names());
        }
        keys.addAll(HttpServerConfig.KEYS);
        keys.addAll(ProposalApiConfig.KEYS);

        assertThat(keys).isNotEmpty().allSatisfy(key -> assertThat(docs).as("README or docs/ documents %s", key)
                .contains("`" + key + "`"));
    }

    @Test
    void shouldDocumentTheRuntimesHttpLimitsAndEachSurfacesPrefixInTheOperatingPage() throws IOException {
        String operating = Files.readString(Path.of("..", "docs", "operating.md"), StandardCharsets.UTF_8);

        assertThat(io.actiongate.runtime.HttpLimits.KEYS).allSatisfy(key -> assertThat(operating)
                .as("docs/operating.md documents %s", key).contains("`" + key + "`"));
        assertThat(List.of(HttpServerConfig.LIMITS_PREFIX, io.actiongate.approver.web.HttpLimits.PREFIX,
                io.actiongate.mcp.McpGateway.LIMITS_PREFIX)).allSatisfy(prefix -> assertThat(operating)
                .as("docs/operating.md names the prefix %s", prefix).contains("`" + prefix + "`"));
    }

    /** README.md and every page of docs/, one text. */
    static String documentation() throws IOException {
        StringBuilder text = new StringBuilder(Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8));
        try (Stream<Path> pages = Files.list(Path.of("..", "docs"))) {
            for (Path page : pages.filter(p -> p.toString().endsWith(".md")).sorted().toList()) {
                text.append('\n').append(Files.readString(page, StandardCharsets.UTF_8));
            }
        }
        return text.toString();
    }
}
