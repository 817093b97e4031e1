package io.actiongate.secrets;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The one resolver of credentials given by reference in any configuration: {@code env:NAME} (an environment
 * variable) or {@code file:PATH} (a mounted secret, surrounding white space stripped). Inline secrets are refused so
 * that no configuration file ever holds one; an empty secret is refused too. Errors name the setting and the
 * reference kind, never a value.
 */
public final class SecretReference {

    public static final String ENV_PREFIX = "env:";
    public static final String FILE_PREFIX = "file:";

    private SecretReference() {
    }

    /** Whether {@code value} has the form of a reference ({@code env:NAME} or {@code file:PATH}). */
    public static boolean isReference(String value) {
        return value != null && ((value.startsWith(ENV_PREFIX) && value.length() > ENV_PREFIX.length())
                || (value.startsWith(FILE_PREFIX) && value.length() > FILE_PREFIX.length()));
    }

    /**
     * {@code reference} checked for its form only (nothing is read): the stripped reference, or null for a blank
     * value. Throws {@link IllegalArgumentException} naming {@code setting} for an inline secret.
     */
    public static String requireReference(String setting, String reference) {
        if (reference == null || reference.isBlank()) {
            return null;
        }
        String ref = reference.strip();
        if (!isReference(ref)) {
            throw inline(setting);
        }
        return ref;
    }

    /** The secret {@code reference} points at, from the process environment or a file. */
    public static String resolve(String setting, String reference) {
        return resolve(setting, reference, System.getenv());
    }

    /** The secret {@code reference} points at; {@code setting} (may be null) names it in errors. */
    public static String resolve(String setting, String reference, Map<String, String> environment) {
        String ref = reference == null ? "" : reference.strip();
        if (ref.startsWith(ENV_PREFIX) && ref.length() > ENV_PREFIX.length()) {
            String name = ref.substring(ENV_PREFIX.length());
            String value = environment.get(name);
            if (value == null || value.isEmpty()) {
                throw new IllegalArgumentException(prefix(setting) + "environment variable " + name + " is not set");
            }
            return value;
        }
        if (ref.startsWith(FILE_PREFIX) && ref.length() > FILE_PREFIX.length()) {
            Path path = Path.of(ref.substring(FILE_PREFIX.length()));
            String value;
            try {
                value = Files.readString(path, StandardCharsets.UTF_8).strip();
            } catch (IOException e) {
                throw new UncheckedIOException(prefix(setting) + "cannot read the secret file " + path, e);
            }
            if (value.isEmpty()) {
                throw new IllegalArgumentException(prefix(setting) + "the secret file " + path + " is empty");
            }
            return value;
        }
        throw inline(setting);
    }

    private static IllegalArgumentException inline(String setting) {
        return new IllegalArgumentException((setting == null ? "a secret" : setting)
                + " must be a secret reference, env:NAME or file:PATH, never the secret");
    }

    private static String prefix(String setting) {
        return setting == null ? "" : setting + ": ";
    }
}
