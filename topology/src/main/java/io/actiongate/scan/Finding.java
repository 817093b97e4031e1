package io.actiongate.scan;

import java.util.Objects;

/**
 * A credential detector fired. Carries which detector fired and where, never the matched text.
 *
 * @param detector the {@link Detector#id()} that fired, e.g. {@code "aws_access_key_id"}
 * @param location {@code "text"} for a plain-text scan, or a JSON pointer (RFC 6901) such as
 *                 {@code "/headers/Authorization"} for a JSON scan ({@code ""} is the document root). A finding in
 *                 a member name points at the object holding it, suffixed {@code #name[n]} (n-th member, from 0),
 *                 so that the name itself never appears.
 */
public record Finding(String detector, String location) {

    public Finding {
        Objects.requireNonNull(detector, "detector");
        Objects.requireNonNull(location, "location");
    }
}
