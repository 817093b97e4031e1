package io.actiongate.serde;

import org.apache.avro.data.TimeConversions;
import org.apache.avro.generic.GenericData;
import org.apache.avro.util.ClassSecurityValidator;

/**
 * Two process-wide Avro settings without which the generated contract classes misbehave; {@link #install()} applies
 * both, once.
 * <ol>
 *   <li><b>Trust.</b> Since Avro 1.11.4 / 1.12.0, {@code SpecificData} refuses to load a record class by name unless
 *   it is trusted. That breaks decoding and {@code Record.newBuilder(other)} (a deep copy) for every class in
 *   {@code io.actiongate.avro}. The package is added to Avro's global validator, keeping what was trusted before,
 *   instead of a system property every launcher and test runner would have to set.</li>
 *   <li><b>Equality of decoded arrays.</b> A decoded array is a {@code GenericData.Array}, whose {@code equals}
 *   compares through {@code GenericData.get()}. That default model knows no logical types, so comparing two
 *   receipts whose attempts carry a nullable {@code timestamp-millis} throws "Unknown datum type
 *   java.time.Instant". The timestamp-millis conversion is registered on the default model, matching the
 *   generated classes. Side effect: generic readers that use the default model also get {@code Instant}s.</li>
 * </ol>
 * {@link AvroSerde} installs this when first loaded. Code that copies or compares records before any serde exists
 * (a CLI, a test) calls {@link #install()} itself; it is idempotent and thread-safe.
 */
public final class AvroSetup {

    /** The package of the generated contract classes. */
    public static final String GENERATED_PACKAGE = "io.actiongate.avro";

    private static boolean installed;

    private AvroSetup() {
    }

    /** Applies both settings; later calls do nothing. */
    public static synchronized void install() {
        if (installed) {
            return;
        }
        ClassSecurityValidator.ClassSecurityPredicate contract = AvroSetup::isContractClass;
        ClassSecurityValidator.setGlobal(ClassSecurityValidator.composite(ClassSecurityValidator.getGlobal(), contract));
        GenericData.get().addLogicalTypeConversion(new TimeConversions.TimestampMillisConversion());
        installed = true;
    }

    static boolean isContractClass(Class<?> type) {
        Package pkg = type.getPackage();
        return pkg != null && pkg.getName().equals(GENERATED_PACKAGE);
    }
}
