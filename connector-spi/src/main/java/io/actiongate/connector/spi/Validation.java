package io.actiongate.connector.spi;

/** The result of {@link Connector#validate}: valid, or the first violated bound (never the offending value). */
public record Validation(boolean valid, String violation) {

    private static final Validation OK = new Validation(true, null);

    public static Validation ok() {
        return OK;
    }

    public static Validation invalid(String violation) {
        return new Validation(false, violation);
    }
}
