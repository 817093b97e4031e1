package io.actiongate.secrets;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The shapes of well-known credentials, one regular expression each: the gate's credential scanner refuses a
 * proposal holding one ({@code io.actiongate.scan}), and {@link Redaction} masks them in provider text. One list,
 * so a token the gate recognises is a token every redaction path masks.
 *
 * <p>Every pattern starts with a negative look-behind for the token's own alphabet and uses possessive or bounded
 * quantifiers: matching stays linear in the input length.
 */
public final class SecretPatterns {

    public static final String PEM_PRIVATE_KEY = "-----BEGIN (?:[A-Z0-9]{1,12} ){0,3}PRIVATE KEY(?: BLOCK)?-----";
    public static final String AWS_ACCESS_KEY_ID =
            "(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|A3T[A-Z0-9])"
                    + "[A-Z0-9]{16}(?![A-Za-z0-9])";
    public static final String GITHUB_TOKEN =
            "(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,251}+|github_pat_[A-Za-z0-9_]{36,244}+)(?![A-Za-z0-9_])";
    public static final String GITLAB_TOKEN = "(?<![A-Za-z0-9_\\-])glpat-[A-Za-z0-9_\\-]{20,}+";
    public static final String SLACK_WEBHOOK_URL =
            "hooks\\.slack\\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\\-]{20,}+";
    public static final String STRIPE_KEY =
            "(?<![A-Za-z0-9_])(?:[sr]k_(?:live|test)_[A-Za-z0-9]{16,}+|whsec_[A-Za-z0-9+/=]{24,}+)";
    public static final String GOOGLE_API_KEY = "(?<![A-Za-z0-9_\\-])AIza[0-9A-Za-z_\\-]{35}(?![0-9A-Za-z_\\-])";
    public static final String ANTHROPIC_API_KEY =
            "(?<![A-Za-z0-9_\\-])sk-ant-[a-z]{2,10}+[0-9]{2}-[A-Za-z0-9_\\-]{32,}+";
    public static final String NPM_TOKEN = "(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])";

    /** Every shape above: a match is a credential whatever surrounds it. */
    public static final List<String> KNOWN_TOKENS = List.of(PEM_PRIVATE_KEY, AWS_ACCESS_KEY_ID, GITHUB_TOKEN,
            GITLAB_TOKEN, SLACK_WEBHOOK_URL, STRIPE_KEY, GOOGLE_API_KEY, ANTHROPIC_API_KEY, NPM_TOKEN);

    /** {@link #KNOWN_TOKENS} as one pattern. */
    static final Pattern ANY_KNOWN_TOKEN = Pattern.compile(String.join("|", KNOWN_TOKENS.stream()
            .map(p -> "(?:" + p + ")").toList()));

    private SecretPatterns() {
    }
}
