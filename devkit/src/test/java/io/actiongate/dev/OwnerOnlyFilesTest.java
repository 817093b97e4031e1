package io.actiongate.dev;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OwnerOnlyFilesTest {

    @TempDir
    Path dir;

    @Test
    void shouldCreateTheFileReadableByItsOwnerOnly() throws Exception {
        Path f = OwnerOnlyFiles.writeString(dir.resolve("mcp-hosts"), "token host demo assistant\n");

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f))).isEqualTo("rw-------");
        assertThat(Files.readString(f)).isEqualTo("token host demo assistant\n");
    }

    @Test
    void shouldNarrowAnExistingWorldReadableFileAndReplaceItsContent() throws Exception {
        Path f = Files.writeString(dir.resolve("storage.properties"), "old=value-that-is-longer\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));

        OwnerOnlyFiles.writeString(f, "new=1\n");

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f))).isEqualTo("rw-------");
        assertThat(Files.readString(f)).isEqualTo("new=1\n");
    }
}
