package io.actiongate.approver.web;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;

import io.actiongate.config.ConfigDefs;

import io.actiongate.approver.oidc.OidcClient;
import io.actiongate.approver.review.Refusal;

/**
 * The step-up mode ({@code approver.stepup.mode}): {@code local} asks for an enrolled passkey or one-time code,
 * {@code idp} sends the person to the identity provider for a fresh authentication per decision
 * ({@code prompt=login}, {@code max_age=0}, the configured {@code acr_values}; RFC 9470's step-up pattern) and then
 * checks the new ID token: {@code auth_time} after the step-up started and within {@code max.age.seconds},
 * {@code acr} one of {@code acr.values} and {@code amr} holding one of {@code amr} (each check only when
 * configured; {@code auth_time} always). Organisations keep MFA where it already lives.
 */
public record IdpStepUp(boolean enabled, List<String> acrValues, List<String> amr, Duration maxAge) {

    public static final String MODE = "approver.stepup.mode";
    public static final String ACR_VALUES = "approver.stepup.acr.values";
    public static final String AMR = "approver.stepup.amr";
    public static final String MAX_AGE_SECONDS = "approver.stepup.max.age.seconds";

    public static final String MODE_DOC = "local (an enrolled passkey or TOTP app) or idp (a fresh authentication at "
            + "the identity provider per decision).";
    public static final String ACR_VALUES_DOC = "idp mode: the acr_values asked for (space separated); the token's "
            + "acr must be one of them.";
    public static final String AMR_DOC = "idp mode: the token's amr must hold at least one of these (comma "
            + "separated), e.g. otp,hwk,mfa.";
    public static final String MAX_AGE_SECONDS_DOC = "idp mode: the token's auth_time may be at most this old (and "
            + "never before the step-up started).";

    public static final ConfigDef CONFIG_DEF = new ConfigDef()
            .define(MODE, Type.STRING, "local", ConfigDef.CaseInsensitiveValidString.in("local", "idp"),
                    Importance.MEDIUM, MODE_DOC)
            .define(ACR_VALUES, Type.STRING, "", Importance.LOW, ACR_VALUES_DOC)
            .define(AMR, Type.STRING, "", Importance.LOW, AMR_DOC)
            .define(MAX_AGE_SECONDS, Type.LONG, 120L, ConfigDef.Range.between(1, 3600), Importance.LOW,
                    MAX_AGE_SECONDS_DOC);

    /** Clock skew tolerated between this service and the identity provider. */
    static final Duration SKEW = Duration.ofSeconds(5);

    public static final IdpStepUp LOCAL = new IdpStepUp(false, List.of(), List.of(), Duration.ofSeconds(120));

    public IdpStepUp {
        acrValues = List.copyOf(acrValues);
        amr = List.copyOf(amr);
    }

    /** Reads the keys of {@link #CONFIG_DEF}; throws {@link IllegalArgumentException} naming a bad key. */
    public static IdpStepUp from(Map<String, String> c) {
        Map<String, Object> v = ConfigDefs.parse(CONFIG_DEF, c);
        String mode = ((String) v.get(MODE)).toLowerCase(Locale.ROOT);
        List<String> acr = words((String) v.get(ACR_VALUES), " ");
        List<String> amr = words((String) v.get(AMR), ",");
        return new IdpStepUp(mode.equals("idp"), acr, amr, Duration.ofSeconds((Long) v.get(MAX_AGE_SECONDS)));
    }

    private static List<String> words(String v, String sep) {
        if (v == null || v.isBlank()) {
            return List.of();
        }
        return Arrays.stream(v.split(sep)).map(String::strip).filter(s -> !s.isEmpty()).toList();
    }

    /** The acr_values parameter of the authorization request (space separated), or null. */
    public String acrParameter() {
        return acrValues.isEmpty() ? null : String.join(" ", acrValues);
    }

    /** Why this step-up's ID token does not count, or null when it does. */
    public Refusal check(OidcClient.StepUp r, Instant now) {
        Instant at = r.authTime();
        if (at == null || at.isBefore(r.startedAt().minus(SKEW)) || at.isAfter(now.plus(SKEW))
                || Duration.between(at, now).compareTo(maxAge) > 0) {
            return Refusal.STEP_UP_NOT_FRESH;
        }
        if (!acrValues.isEmpty() && (r.acr() == null || !acrValues.contains(r.acr()))) {
            return Refusal.STEP_UP_TOO_WEAK;
        }
        if (!amr.isEmpty() && r.amr().stream().noneMatch(amr::contains)) {
            return Refusal.STEP_UP_TOO_WEAK;
        }
        return null;
    }
}
