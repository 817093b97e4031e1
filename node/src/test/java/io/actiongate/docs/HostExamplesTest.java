package io.actiongate.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The HTTP tool host examples stay small, and the tool-host page (docs/tool-hosts.md) starts with them. */
class HostExamplesTest {

    private static final Path EXAMPLES = Path.of("..", "examples");

    @Test
    void shouldKeepEachExampleUnderThirtyLinesOfLogic() throws IOException {
        assertThat(logicLines(EXAMPLES.resolve("python-host/propose_email.py"), "#")).isLessThan(30);
        assertThat(logicLines(EXAMPLES.resolve("typescript-host/propose-email.mjs"), "//")).isLessThan(30);
    }

    @Test
    void shouldStartTheToolHostPageWithTheHttpExample() throws IOException {
        String page = Files.readString(Path.of("..", "docs", "tool-hosts.md"), StandardCharsets.UTF_8);
        int http = page.indexOf("\n## HTTP/JSON, any language");
        int java = page.indexOf("\n## Java: `actiongate-client`");
        assertThat(http).isPositive();
        assertThat(http).isLessThan(java).isLessThan(page.indexOf("\n## MCP: the gateway"));
        assertThat(page.substring(http, java)).contains("/v1/proposals")
                .contains("examples/python-host/propose_email.py").contains("examples/typescript-host/propose-email.mjs");
    }

    /** Lines that are not blank, comments, imports or (Python) the module docstring. */
    static long logicLines(Path file, String comment) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8).replaceAll("(?s)\"\"\".*?\"\"\"", "");
        List<String> lines = text.lines().map(String::strip).toList();
        return lines.stream().filter(l -> !l.isEmpty() && !l.startsWith(comment) && !l.startsWith("import ")
                && !l.startsWith("from ")).count();
    }
}
