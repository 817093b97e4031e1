package io.actiongate.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The tool host packages' examples (clients/python, clients/typescript) stay small, and the tool-host page
 * (docs/tool-hosts.md) starts with the packages, then the HTTP API they speak.
 */
class HostExamplesTest {

    private static final Path CLIENTS = Path.of("..", "clients");

    @Test
    void shouldKeepEachExampleUnderThirtyLinesOfLogic() throws IOException {
        assertThat(logicLines(CLIENTS.resolve("python/examples/propose_email.py"), "#")).isLessThan(30);
        for (String example : List.of("propose-email", "openai-agents", "ai-sdk", "langgraph")) {
            assertThat(logicLines(CLIENTS.resolve("typescript/examples/" + example + ".ts"), "//")).as(example)
                    .isLessThan(30);
        }
    }

    @Test
    void shouldStartTheToolHostPageWithThePackagesThenTheHttpApi() throws IOException {
        String page = Files.readString(Path.of("..", "docs", "tool-hosts.md"), StandardCharsets.UTF_8);
        int packages = page.indexOf("\n## TypeScript and Python: the packages");
        int http = page.indexOf("\n## HTTP/JSON, any language");
        int java = page.indexOf("\n## Java: `actiongate-client`");
        assertThat(packages).isPositive();
        assertThat(packages).isLessThan(http);
        assertThat(http).isLessThan(java).isLessThan(page.indexOf("\n## MCP: the gateway"));
        assertThat(page.substring(packages, http)).contains("clients/typescript/examples")
                .contains("clients/python/examples/propose_email.py").contains("@actiongate/client/openai-agents");
        assertThat(page.substring(http, java)).contains("/v1/proposals");
    }

    /** Lines that are not blank, comments, imports or (Python) the module docstring. */
    static long logicLines(Path file, String comment) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8).replaceAll("(?s)\"\"\".*?\"\"\"", "");
        List<String> lines = text.lines().map(String::strip).toList();
        return lines.stream().filter(l -> !l.isEmpty() && !l.startsWith(comment) && !l.startsWith("import ")
                && !l.startsWith("from ")).count();
    }
}
