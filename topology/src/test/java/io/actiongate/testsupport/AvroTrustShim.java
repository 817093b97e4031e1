package io.actiongate.testsupport;

import org.apache.avro.util.ClassSecurityValidator;

/**
 * Until the serde trusts the generated contract package by itself (pending on main), tests trust it here so
 * decoding works. Idempotent.
 */
public final class AvroTrustShim {

    private static boolean installed;

    private AvroTrustShim() {
    }

    public static synchronized void install() {
        if (installed) {
            return;
        }
        ClassSecurityValidator.ClassSecurityPredicate contract =
                type -> type.getPackage() != null && type.getPackage().getName().equals("io.actiongate.avro");
        ClassSecurityValidator.setGlobal(ClassSecurityValidator.composite(ClassSecurityValidator.getGlobal(),
                contract));
        installed = true;
    }
}
