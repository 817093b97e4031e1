package io.actiongate.connector.spi;

import java.util.Objects;

/** What the provider said about one idempotency key. {@code evidence} is redacted, short, human-readable. */
public record LookupResult(Verdict verdict, String evidence, String providerReceiptId) {

    /** Mirrors the Avro {@code Verdict}. */
    public enum Verdict { EFFECT_CONFIRMED, NO_EFFECT, STILL_UNKNOWN }

    public LookupResult {
        Objects.requireNonNull(verdict, "verdict");
        evidence = evidence == null ? "" : evidence;
    }

    public static LookupResult confirmed(String evidence, String providerReceiptId) {
        return new LookupResult(Verdict.EFFECT_CONFIRMED, evidence, providerReceiptId);
    }

    public static LookupResult noEffect(String evidence) {
        return new LookupResult(Verdict.NO_EFFECT, evidence, null);
    }

    public static LookupResult stillUnknown(String evidence) {
        return new LookupResult(Verdict.STILL_UNKNOWN, evidence, null);
    }
}
