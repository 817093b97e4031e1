package io.actiongate.approver.web;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

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

    /** Clock skew tolerated between this service and the identity provider. */
    static final Duration SKEW = Duration.ofSeconds(5);

    public static final IdpStepUp LOCAL = new IdpStepUp(false, List.of(), List.of(), Duration.ofSeconds(120));

    public IdpStepUp {
        acrValues = List.copyOf(acrValues);
        amr = List.copyOf(amr);
    }

    public static IdpStepUp from(Map<String, String> c) {
        String mode = c.getOrDefault(MODE, "local").strip().toLowerCase(Locale.ROOT);
        if (!mode.equals("local") && !mode.equals("idp")) {
            throw new IllegalArgumentException(MODE + " must be local or idp");
        }
        List<String> acr = words(c.get(ACR_VALUES), " ");
        List<String> amr = words(c.get(AMR), ",");
        long seconds;
        try {
            seconds = Long.parseLong(c.getOrDefault(MAX_AGE_SECONDS, "120").strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(MAX_AGE_SECONDS + " must be a whole number of seconds", e);
        }
        if (seconds < 1 || seconds > 3600) {
            throw new IllegalArgumentException(MAX_AGE_SECONDS + " must be 1..3600");
        }
        return new IdpStepUp(mode.equals("idp"), acr, amr, Duration.ofSeconds(seconds));
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
