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

    @Test
    void shouldNarrowAnExistingSecretsFolderAndItsSecretAsAnEarlierRunLeftThem() throws Exception {
        // an earlier dev wrote secrets/host-tokens 0644 in a folder others may enter
        Path secrets = Files.createDirectory(dir.resolve("secrets"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Path old = Files.writeString(secrets.resolve("host-token"), "0123456789abcdef\n");
        Files.setPosixFilePermissions(old, PosixFilePermissions.fromString("rw-r--r--"));

        OwnerOnlyFiles.directory(secrets);
        String token = OwnerOnlyFiles.secret(old);

        assertThat(token).isEqualTo("0123456789abcdef");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secrets))).isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(old))).isEqualTo("rw-------");
    }

    @Test
    void shouldCreateTheFolderAndANewSecretOwnerOnlyUnderAnyDataDirectory() throws Exception {
        Path dataDir = Files.createDirectory(dir.resolve("data"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxrwxr-x")));

        Path secrets = OwnerOnlyFiles.directory(dataDir.resolve("secrets"));
        String first = OwnerOnlyFiles.secret(secrets.resolve("http-token"));
        String again = OwnerOnlyFiles.secret(secrets.resolve("http-token"));

        assertThat(first).matches("[0-9a-f]{36}").isEqualTo(again);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secrets))).isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secrets.resolve("http-token"))))
                .isEqualTo("rw-------");
    }
}
