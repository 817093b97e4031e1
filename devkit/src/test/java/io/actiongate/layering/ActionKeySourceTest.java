package io.actiongate.layering;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * One way to build and parse an action key: {@code io.actiongate.key.ActionKey}. A source scan of every module
 * (main and test code) fails on a key joined by hand ({@code taskId + "/" + toolCallId}) or split by hand
 * ({@code indexOf('/')}). The few files that join or split something else with a slash are named here, with why.
 */
class ActionKeySourceTest {

    /** Something named like a task id, joined with a slash to what follows. */
    private static final Pattern HAND_MADE_KEY = Pattern.compile(
            "(?i)task\\w*(?:\\(\\))?\\s*\\+\\s*(?:\"/\"|'/'|(?:ActionKey\\.)?SEPARATOR)\\s*\\+"
                    + "|(?:\"/\"|'/'|(?:ActionKey\\.)?SEPARATOR)\\s*\\+\\s*[\\w.]*(?:tool_?)?call_?id");
    /** A slash looked up by hand, the way an action key used to be parsed. */
    private static final Pattern HAND_PARSED_KEY = Pattern.compile(
            "(?:indexOf|lastIndexOf|split)\\(\\s*(?:'/'|\"/\"|(?:ActionKey\\.)?SEPARATOR)\\s*\\)");

    /** File name -> why it may contain what the patterns find. */
    private static final Map<String, String> ALLOWED = Map.of(
            "ActionKey.java", "the one place that builds and parses action keys",
            "ActionKeyTest.java", "tests ActionKey's own format",
            "ActionKeySourceTest.java", "names the patterns",
            "DispatchRequest.java", "the connectors depend on no schema module; actionKey() is their one builder",
            "SchemaCatalog.java", "splits a schema resource path (v1/Name.avsc), not an action key",
            "KubectlClassifier.java", "splits a kubectl TYPE/NAME argument, not an action key",
            "ReviewBuilder.java", "takes the file name of an attachment's object key, not an action key");

    static Path root() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !(Files.exists(dir.resolve("topology")) && Files.exists(dir.resolve("pom.xml")))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("the repository root above " + Path.of("").toAbsolutePath()).isNotNull();
        return dir;
    }

    static List<Path> sources() throws IOException {
        try (Stream<Path> files = Files.walk(root())) {
            return files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> p.toString().contains("/src/"))
                    .filter(p -> !p.toString().contains("/target/") && !p.toString().contains("/.git/"))
                    .toList();
        }
    }

    static List<String> findings(Path file, Pattern pattern) {
        List<String> found = new ArrayList<>();
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = pattern.matcher(lines.get(i));
                if (m.find()) {
                    found.add(root().relativize(file) + ":" + (i + 1) + ": " + lines.get(i).strip());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return found;
    }

    private static List<String> scan(Pattern pattern) throws IOException {
        List<Path> files = sources();
        assertThat(files).as("sources of every module").hasSizeGreaterThan(300)
                .anyMatch(p -> p.toString().contains("/topology/src/main/"))
                .anyMatch(p -> p.toString().contains("/workers/src/test/"));
        return files.stream().filter(p -> !ALLOWED.containsKey(p.getFileName().toString()))
                .flatMap(p -> findings(p, pattern).stream()).toList();
    }

    @Test
    void shouldBuildEveryActionKeyWithActionKey() throws IOException {
        assertThat(scan(HAND_MADE_KEY)).as("use ActionKey.format(taskId, toolCallId) or new ActionKey(..)")
                .isEmpty();
    }

    @Test
    void shouldParseEveryActionKeyWithActionKey() throws IOException {
        assertThat(scan(HAND_PARSED_KEY)).as("use ActionKey.parse / tryParse").isEmpty();
    }

    @Test
    void shouldRecogniseTheHandMadeKeysItForbids() {
        assertThat(List.of("String key = p.getTaskId() + \"/\" + p.getToolCallId();",
                "return taskId + ActionKey.SEPARATOR + toolCallId;", "Map.of(TASK + \"/\" + call, proposal)",
                "key(task + '/' + id)", "x = prefix + \"/\" + toolCallId;"))
                .allMatch(line -> HAND_MADE_KEY.matcher(line).find());
        assertThat(List.of("key.substring(0, key.indexOf('/'))", "key.split(\"/\")",
                "key.indexOf(ActionKey.SEPARATOR)")).allMatch(line -> HAND_PARSED_KEY.matcher(line).find());
        assertThat(List.of("ActionKey.format(taskId, toolCallId)", "provider + \"/\" + operation",
                "r.verified() + \"/\" + r.actions()")).noneMatch(line -> HAND_MADE_KEY.matcher(line).find());
    }
}
