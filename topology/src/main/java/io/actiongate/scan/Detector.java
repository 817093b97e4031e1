package io.actiongate.scan;

/**
 * One kind of credential material. Implementations are stateless and thread-safe, precompile their patterns and
 * do work linear in the input length (no catastrophic backtracking).
 */
public interface Detector {

    /** Stable identifier, reported in {@link Finding#detector()}, e.g. {@code "github_token"}. */
    String id();

    /** One line for operators: what this detector looks for. */
    String description();

    /** Whether {@code value} contains credential material of this kind anywhere in it. */
    boolean matches(String value);

    /**
     * Whether a JSON member whose name is {@code name} and whose string value is {@code value} carries credential
     * material because of the pair (e.g. {@code "password": "hunter2Xq9!zP4r#"}). Most detectors only look at
     * values, so the default is {@code false}; {@link #matches(String)} is applied to names and values separately.
     */
    default boolean matchesMember(String name, String value) {
        return false;
    }
}
