package io.actiongate.cli.commands;

import picocli.CommandLine.Command;

/** {@code actiongate mcp import}. */
@Command(name = "mcp", description = "Operate the MCP gateway (role mcp-gateway).",
        subcommands = {McpImportCommand.class})
public final class McpCommand extends OperatorCommand {

    @Override
    int execute() {
        spec.commandLine().usage(err());
        return 2;
    }
}
