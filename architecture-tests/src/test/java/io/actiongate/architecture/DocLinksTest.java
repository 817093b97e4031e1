package io.actiongate.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every relative link of README.md, CHANGELOG.md, docs/ and the DESIGN.md notes points at an existing file, and at an
 * existing heading.
 */
class DocLinksTest {

    /**
     * Pages other work adds (the configuration reference generated from the ConfigDefs, the benchmark and chaos
     * pages): the README links them already. Remove a page from here when it lands; a listed page that exists fails
     * {@link #shouldListOnlyPagesThatDoNotExistYetAsPending}, so the list cannot go stale.
     */
    static final Set<String> PENDING = Set.of();

    @Test
    void shouldLinkOnlyToFilesAndHeadingsThatExist() throws IOException {
        Path root = ProductionClasses.root();
        List<Path> pages = pages(root);
        assertThat(pages).contains(root.resolve("README.md"), root.resolve("docs/contract.md"),
                root.resolve("docs/operating.md"), root.resolve("docs/history/README.md"), root.resolve("CHANGELOG.md"),
                root.resolve("topology/src/main/java/io/actiongate/gate/DESIGN.md"));
        assertThat(DocLinks.broken(root, pages, PENDING)).as("broken relative links").isEmpty();
    }

    @Test
    void shouldListOnlyPagesThatDoNotExistYetAsPending() {
        Path root = ProductionClasses.root();
        assertThat(PENDING).as("pending pages that exist now: remove them from DocLinksTest.PENDING")
                .noneMatch(page -> Files.exists(root.resolve(page)));
    }

    @Test
    void shouldReportAMissingFileAMissingHeadingAndAnAnchorIntoAPendingPage(@TempDir Path dir) throws IOException {
        Path root = dir.toRealPath();
        Files.createDirectories(root.resolve("docs"));
        Files.writeString(root.resolve("docs/ops.md"), "# Ops\n\n## Secured Kafka (SASL/TLS)\n\n## Metrics\n\n## Metrics\n",
                StandardCharsets.UTF_8);
        Files.writeString(root.resolve("README.md"), String.join("\n",
                "[ok](docs/ops.md) [ok](docs/ops.md#secured-kafka-sasltls) [ok](docs/ops.md#metrics-1)",
                "[ok](#readme) [ok](https://example.com/x) `[not a link](nowhere.md)`",
                "# Readme",
                "[gone](docs/gone.md) [no heading](docs/ops.md#tracing) [pending](docs/later.md)",
                "[into pending](docs/later.md#keys) [up](../elsewhere.md)",
                "```", "[in code](nowhere.md)", "```", ""), StandardCharsets.UTF_8);

        List<String> broken = DocLinks.broken(root, List.of(root.resolve("README.md")), Set.of("docs/later.md"));

        assertThat(broken).containsExactly(
                "README.md:4: docs/gone.md (no such file)",
                "README.md:4: docs/ops.md#tracing (no heading with anchor #tracing)",
                "README.md:5: docs/later.md#keys (an anchor into a page that does not exist yet)",
                "README.md:5: ../elsewhere.md (outside the repository)");
    }

    @Test
    void shouldDeriveAnchorsAsGitHubDoes() {
        assertThat(DocLinks.slug("HTTP/JSON, any language (`POST /v1/proposals`)"))
                .isEqualTo("httpjson-any-language-post-v1proposals");
        assertThat(DocLinks.slug("What `dev` starts")).isEqualTo("what-dev-starts");
        assertThat(DocLinks.slug("`topics create`")).isEqualTo("topics-create");
        assertThat(DocLinks.slug("Keys by role_x")).isEqualTo("keys-by-role_x");
    }

    /**
     * README.md, CHANGELOG.md, every Markdown page under docs/ (its folders, history and the committed reports,
     * included), the chaos reports' index and every module's DESIGN.md (the design notes link into docs/history/).
     */
    private static List<Path> pages(Path root) throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(root.resolve("README.md"));
        pages.add(root.resolve("CHANGELOG.md"));
        pages.add(root.resolve("chaos/reports/README.md"));
        try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        try (Stream<Path> designs = Files.walk(root)) {
            designs.filter(p -> p.getFileName().toString().equals("DESIGN.md"))
                    .filter(p -> !root.relativize(p).toString().contains("target"))
                    .sorted().forEach(pages::add);
        }
        return pages;
    }
}
