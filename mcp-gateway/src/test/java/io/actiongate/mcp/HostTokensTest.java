package io.actiongate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostTokensTest {

    @TempDir
    Path dir;

    @Test
    void shouldMapATokenToItsHostAndRefuseAnyOther() throws Exception {
        io.actiongate.runtime.BearerTokens<HostIdentity> tokens = HostTokens.load("k", Files.writeString(dir.resolve("t"),
                "# hosts\n\nabcdefghijklmnop-1 user-1 acme chat-default\nabcdefghijklmnop-2 bot-2 other p\n"));
        assertThat(tokens.lookup("abcdefghijklmnop-1"))
                .contains(new HostIdentity("user-1", "acme", "chat-default"));
        assertThat(tokens.lookup("abcdefghijklmnop-2")).contains(new HostIdentity("bot-2", "other", "p"));
        assertThat(tokens.lookup("abcdefghijklmnop-3")).isEmpty();
        assertThat(tokens.lookup("")).isEmpty();
        assertThat(tokens.lookup(null)).isEmpty();
    }

    @Test
    void shouldRefuseAMalformedFileWithoutEchoingTheToken() throws Exception {
        Path file = Files.writeString(dir.resolve("t"), "short-secret user-1 acme\n");
        assertThatThrownBy(() -> HostTokens.load("k", file)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 1").hasMessageNotContaining("short-secret");
        Path empty = Files.writeString(dir.resolve("e"), "# nobody\n");
        assertThatThrownBy(() -> HostTokens.load("k", empty)).hasMessageContaining("no token");
    }

    @Test
    void shouldTakeANewHostAndDropARevokedOneWhenTheFileChanges() throws Exception {
        Path file = Files.writeString(dir.resolve("t"), "abcdefghijklmnop-1 user-1 acme p\n");
        io.actiongate.runtime.BearerTokens<HostIdentity> tokens = HostTokens.load("k", file);
        assertThat(tokens.lookup("abcdefghijklmnop-1")).isPresent();

        Files.writeString(file, "abcdefghijklmnop-2 user-2 acme p\n# user-1 revoked\n");
        Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 5000));

        assertThat(tokens.lookup("abcdefghijklmnop-1")).as("the revoked host").isEmpty();
        assertThat(tokens.lookup("abcdefghijklmnop-2")).contains(new HostIdentity("user-2", "acme", "p"));
    }
}
