package io.actiongate.serde;

import org.apache.avro.util.ClassSecurityValidator;

/**
 * Lets Avro instantiate the generated contract classes. Since Avro 1.11.4 / 1.12.0, {@code SpecificData} refuses to
 * load a record class by name unless it is trusted, which breaks both decoding and
 * {@code Record.newBuilder(other)} (a deep copy) for every class in {@code io.actiongate.avro}. Rather than a
 * JVM-wide system property that every launcher and test runner would have to set, the package is added to Avro's
 * global validator here, keeping whatever was trusted before.
 *
 * <p>{@link AvroSerde} installs it when first loaded. Code that copies records before any serde exists (a CLI, a
 * test) calls {@link #install()} itself; it is idempotent.
 */
public final class AvroTrust {

    /** The package of the generated contract classes. */
    public static final String GENERATED_PACKAGE = "io.actiongate.avro";

    private static boolean installed;

    private AvroTrust() {
    }

    /** Trusts the generated contract classes in addition to what Avro already trusts. */
    public static synchronized void install() {
        if (installed) {
            return;
        }
        ClassSecurityValidator.ClassSecurityPredicate contract = AvroTrust::isContractClass;
        ClassSecurityValidator.setGlobal(ClassSecurityValidator.composite(ClassSecurityValidator.getGlobal(), contract));
        installed = true;
    }

    static boolean isContractClass(Class<?> type) {
        Package pkg = type.getPackage();
        return pkg != null && pkg.getName().equals(GENERATED_PACKAGE);
    }
}
