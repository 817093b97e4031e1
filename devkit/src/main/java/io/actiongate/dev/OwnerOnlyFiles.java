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
 * only, in folders only their owner may enter. The file is created 0600 before a byte is written and an existing one
 * is narrowed to 0600 first, so there is no moment at which another local user could read it; a folder is created
 * 0700 or narrowed to 0700, whatever {@code --data-dir} it is in and however an earlier run left it.
 */
final class OwnerOnlyFiles {

    static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    static final Set<PosixFilePermission> OWNER_ONLY_DIRECTORY = PosixFilePermissions.fromString("rwx------");

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

    /** A folder for secrets: created 0700 (with its missing parents), or an existing one narrowed to 0700. */
    static Path directory(Path dir) throws IOException {
        if (Files.isDirectory(dir)) {
            Files.setPosixFilePermissions(dir, OWNER_ONLY_DIRECTORY);
            return dir;
        }
        Files.createDirectories(dir.toAbsolutePath().getParent());
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIRECTORY));
        return dir;
    }

    /**
     * The random secret kept in {@code file}, made on the first run (18 random bytes, hex) and reused by later runs
     * with the same data directory; an existing file is narrowed to 0600 before it is read.
     */
    static String secret(Path file) throws IOException {
        if (Files.exists(file)) {
            Files.setPosixFilePermissions(file, OWNER_ONLY);
            return Files.readString(file, StandardCharsets.UTF_8).strip();
        }
        byte[] bytes = new byte[18];
        new java.security.SecureRandom().nextBytes(bytes);
        String value = java.util.HexFormat.of().formatHex(bytes);
        writeString(file, value);
        return value;
    }
}
