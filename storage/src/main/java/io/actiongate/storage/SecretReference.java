package io.actiongate.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Resolves a credential given by reference, {@code env:NAME} or {@code file:PATH}, the same syntax the connectors
 * use. Inline secrets are refused so that no configuration file ever holds one. Errors name the reference kind,
 * never a value.
 */
public final class SecretReference {

    private SecretReference() {
    }

    public static String resolve(String setting, String reference) {
        return resolve(setting, reference, System.getenv());
    }

    static String resolve(String setting, String reference, Map<String, String> environment) {
        if (reference.startsWith("env:")) {
            String name = reference.substring(4);
            String value = environment.get(name);
            if (value == null || value.isEmpty()) {
                throw new IllegalArgumentException(setting + ": environment variable " + name + " is not set");
            }
            return value;
        }
        if (reference.startsWith("file:")) {
            Path path = Path.of(reference.substring(5));
            try {
                String value = Files.readString(path, StandardCharsets.UTF_8).strip();
                if (value.isEmpty()) {
                    throw new IllegalArgumentException(setting + ": the secret file is empty");
                }
                return value;
            } catch (IOException e) {
                throw new UncheckedIOException(setting + ": cannot read the secret file", e);
            }
        }
        throw new IllegalArgumentException(setting + " must be a reference, env:NAME or file:PATH, never the secret");
    }
}
