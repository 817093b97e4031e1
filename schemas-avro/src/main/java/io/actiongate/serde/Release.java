package io.actiongate.serde;

/**
 * The actiongate release this build is: the {@code Implementation-Version} of the jar it runs from (the production
 * and dev kit jars carry it), or "a development build" when it runs from classes (tests, the IDE).
 */
public final class Release {

    private static final String CURRENT = find();

    private Release() {
    }

    /** For example {@code actiongate 0.2.0}, or {@code actiongate (a development build)}. */
    public static String current() {
        return CURRENT;
    }

    private static String find() {
        String version = Release.class.getPackage().getImplementationVersion();
        return version == null || version.isBlank() ? "actiongate (a development build)" : "actiongate " + version;
    }
}
