package io.actiongate.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Files of this repository that the tests hold the code to (the contract page, the client packages), found from the
 * working directory upwards, so that a test reads them whether Maven runs it in the module or an IDE in the root.
 */
public final class RepositoryFiles {

    private RepositoryFiles() {
    }

    /** The repository's root: the nearest directory at or above the working directory holding docs/contract.md. */
    public static Path root() {
        Path start = Path.of("").toAbsolutePath();
        Path dir = start;
        while (dir != null && !Files.exists(dir.resolve("docs/contract.md"))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("the repository holding docs/contract.md, at or above " + start).isNotNull();
        return dir;
    }

    /** The text (UTF-8) of {@code relative}, a path from the repository's root. */
    public static String read(String relative) throws IOException {
        return Files.readString(root().resolve(relative), StandardCharsets.UTF_8);
    }
}
