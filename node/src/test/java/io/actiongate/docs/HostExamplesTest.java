package io.actiongate.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The HTTP tool host examples stay small, and the README's tool-host sections start with them. */
class HostExamplesTest {

    private static final Path EXAMPLES = Path.of("..", "examples");

    @Test
    void shouldKeepEachExampleUnderThirtyLinesOfLogic() throws IOException {
        assertThat(logicLines(EXAMPLES.resolve("python-host/propose_email.py"), "#")).isLessThan(30);
        assertThat(logicLines(EXAMPLES.resolve("typescript-host/propose-email.mjs"), "//")).isLessThan(30);
    }

    @Test
    void shouldStartTheReadmesToolHostSectionsWithTheHttpExample() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        int http = readme.indexOf("## Tool hosts in any language: HTTP/JSON");
        assertThat(http).isPositive();
        assertThat(http).isLessThan(readme.indexOf("## Tool hosts in Java"))
                .isLessThan(readme.indexOf("## MCP tool hosts"));
        assertThat(readme.substring(http, readme.indexOf("## Tool hosts in Java"))).contains("/v1/proposals")
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
