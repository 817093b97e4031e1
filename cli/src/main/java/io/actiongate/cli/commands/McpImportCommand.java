package io.actiongate.cli.commands;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import io.actiongate.avro.ToolDescriptor;
import io.actiongate.cli.ConfigOptions;
import io.actiongate.mcp.GatewayConfig;
import io.actiongate.mcp.McpImport;
import io.actiongate.policy.WrittenPolicy;

/**
 * {@code actiongate mcp import --config gateway.yaml --upstream NAME --trust TOOL[,TOOL...]}: the operator's act of
 * trusting named upstream tools. Writes one {@code ToolDescriptor} per named tool; nothing is ever trusted
 * automatically.
 */
@Command(name = "import", description = {
        "Trust named tools of an upstream MCP server: write their ToolDescriptor policy records.",
        "Each record holds the tool's schema hash and annotations as the upstream offers them now; approval is "
                + "NONE only for readOnlyHint=true and not destructive."})
public final class McpImportCommand extends OperatorCommand {

    @Mixin
    ConfigOptions config = new ConfigOptions();

    @Option(names = "--upstream", required = true, paramLabel = "NAME",
            description = "An upstream of mcp.gateway.upstreams.")
    String upstream;

    @Option(names = "--trust", required = true, split = ",", paramLabel = "TOOL",
            description = "Tool names to trust (comma list, repeatable).")
    List<String> trust;

    @Override
    int execute() throws Exception {
        GatewayConfig gateway = GatewayConfig.from(config.load(Map.of()));
        for (ToolDescriptor d : McpImport.run(gateway, upstream, new LinkedHashSet<>(trust))) {
            out().println(WrittenPolicy.describe(d));
        }
        out().flush();
        return 0;
    }
}
