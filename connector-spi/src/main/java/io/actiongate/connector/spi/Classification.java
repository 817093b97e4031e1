package io.actiongate.connector.spi;

import java.util.Objects;

/** What an operation does, as far as the connector can prove it. */
public record Classification(Kind kind, String detail) {

    public enum Kind {
        /** Proven to change nothing outside. */
        READ,
        /** Changes something outside; needs authorization. */
        EFFECT,
        /** Touches credentials or configuration of the tool itself; never run through actiongate. */
        REJECTED_AUTH_OR_CONFIG,
        /** Has no bound in time or scope (follow, watch, delete everything); never run. */
        REJECTED_UNBOUNDED,
        /** Not recognised; treated as neither read nor allowed. */
        UNSUPPORTED
    }

    public Classification {
        Objects.requireNonNull(kind, "kind");
        detail = detail == null ? "" : detail;
    }

    public static Classification read(String detail) {
        return new Classification(Kind.READ, detail);
    }

    public static Classification effect(String detail) {
        return new Classification(Kind.EFFECT, detail);
    }

    public static Classification unsupported(String detail) {
        return new Classification(Kind.UNSUPPORTED, detail);
    }

    public boolean isAllowed() {
        return kind == Kind.READ || kind == Kind.EFFECT;
    }
}
