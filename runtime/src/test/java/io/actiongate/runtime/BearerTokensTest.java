package io.actiongate.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BearerTokensTest {

    @TempDir
    Path dir;

    /** A format like the node's: {@code TOKEN [ORG]}, anything longer ignored; "bad" refuses the file. */
    private static Optional<String> orgOf(String token, List<String> rest) {
        if (token.equals("bad")) {
            throw new IllegalArgumentException("refused");
        }
        return rest.size() > 1 ? Optional.empty() : Optional.of(rest.isEmpty() ? "*" : rest.get(0));
    }

    private BearerTokens<String> tokens(Path file) {
        return new BearerTokens<>("t.file", file, BearerTokensTest::orgOf, false);
    }

    private static void touch(Path file, long plusMs) throws Exception {
        Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis() + plusMs));
    }

    @Test
    void shouldNameWhatEachTokenNamesAndSkipCommentsBlankAndMalformedLines() throws Exception {
        BearerTokens<String> tokens = tokens(Files.writeString(dir.resolve("t"),
                "# ops\n\n  op-token  \norg-token acme\nthree words here\n"));

        assertThat(tokens.lookup("op-token")).contains("*");
        assertThat(tokens.lookup("org-token")).contains("acme");
        assertThat(tokens.lookup("three")).as("malformed line ignored").isEmpty();
        assertThat(tokens.lookup("other")).isEmpty();
        assertThat(tokens.lookup("")).isEmpty();
        assertThat(tokens.lookup(null)).isEmpty();
        assertThat(tokens.size()).isEqualTo(2);
        assertThat(tokens.fromHeader("bEaReR   org-token ")).contains("acme");
        assertThat(tokens.fromHeader("Basic org-token")).isEmpty();
    }

    @Test
    void shouldRereadTheFileWhenItChangesAndKeepTheLastTokensWhenTheNewFileIsRefusedOrGone() throws Exception {
        Path file = Files.writeString(dir.resolve("t"), "old acme\n");
        BearerTokens<String> tokens = tokens(file);
        assertThat(tokens.lookup("old")).contains("acme");

        Files.writeString(file, "new globex\n");
        touch(file, 5_000);
        assertThat(tokens.lookup("old")).as("rotated out").isEmpty();
        assertThat(tokens.lookup("new")).contains("globex");

        Files.writeString(file, "bad line\n");
        touch(file, 10_000);
        assertThat(tokens.lookup("new")).as("a refused file keeps the tokens read before").contains("globex");

        Files.delete(file);
        assertThat(tokens.lookup("new")).as("a vanished file keeps the tokens read before").contains("globex");
    }

    @Test
    void shouldRefuseAnUnreadableRefusedOrRequiredButEmptyFileAtStartWithoutEchoingAToken() throws Exception {
        assertThatThrownBy(() -> tokens(dir.resolve("missing"))).hasMessageContaining("t.file");
        Path refused = Files.writeString(dir.resolve("r"), "ok acme\nbad secret-bits\n");
        assertThatThrownBy(() -> tokens(refused)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 2").hasMessageNotContaining("secret-bits");
        Path empty = Files.writeString(dir.resolve("e"), "# nobody\n");
        assertThatThrownBy(() -> new BearerTokens<>("t.file", empty, BearerTokensTest::orgOf, true))
                .hasMessageContaining("no token");
        assertThat(tokens(empty).size()).isZero();
    }

    @Test
    void shouldReadOnlyTheBearerSchemeOfAnAuthorizationHeader() {
        assertThat(BearerHeader.token("Bearer abc")).contains("abc");
        assertThat(BearerHeader.token("bearer   abc  ")).contains("abc");
        assertThat(BearerHeader.token("Bearer ")).isEmpty();
        assertThat(BearerHeader.token("Bearer    ")).isEmpty();
        assertThat(BearerHeader.token("Basic abc")).isEmpty();
        assertThat(BearerHeader.token("Bearerabc")).isEmpty();
        assertThat(BearerHeader.token(null)).isEmpty();
    }
}
