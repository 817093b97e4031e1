package io.actiongate.dev;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Writes files that hold secrets or endpoints with credentials (tokens, object store keys) readable by their owner
 * only. The file is created 0600 before a byte is written and an existing one is narrowed to 0600 first, so there is
 * no moment at which another local user could read it.
 */
final class OwnerOnlyFiles {

    static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private OwnerOnlyFiles() {
    }

    static Path writeString(Path file, String text) throws IOException {
        if (Files.exists(file)) {
            Files.setPosixFilePermissions(file, OWNER_ONLY);
        } else {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        }
        return Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE);
    }
}
