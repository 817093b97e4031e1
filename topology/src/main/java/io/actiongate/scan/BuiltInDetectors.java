package io.actiongate.scan;

import java.util.List;

import io.actiongate.secrets.SecretPatterns;

/**
 * The built-in detectors, most specific first (so the reported id is the most precise one). DESIGN.md has the table.
 * The shapes of well-known tokens come from {@link SecretPatterns}, the list every redaction path masks too.
 *
 * <p>Every token pattern starts with a negative look-behind for the token's own alphabet, so a long run of token
 * chars is tried from its first char only, and uses possessive or bounded quantifiers: work stays linear in the
 * input length.
 */
final class BuiltInDetectors {

    private BuiltInDetectors() {
    }

    static List<Detector> all() {
        return List.of(
                PatternDetector.of("pem_private_key",
                        Hints.anyOf("-----BEGIN "),
                        "PEM private key block header (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP ... PRIVATE KEY)",
                        SecretPatterns.PEM_PRIVATE_KEY),
                PatternDetector.of("aws_access_key_id",
                        Hints.anyOf("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "ANPA", "ANVA", "AROA",
                                "APKA", "A3T"),
                        "AWS access key id: AKIA/ASIA/AGPA/AIDA/AROA/... followed by 16 upper-case alphanumerics",
                        SecretPatterns.AWS_ACCESS_KEY_ID),
                new AwsSecretKeyDetector(),
                PatternDetector.of("github_token",
                        Hints.anyOf("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
                        "GitHub token: ghp_/gho_/ghu_/ghs_/ghr_ + 36 or more alphanumerics, or github_pat_ "
                                + "fine-grained token",
                        SecretPatterns.GITHUB_TOKEN),
                PatternDetector.of("gitlab_token",
                        Hints.anyOf("glpat-"),
                        "GitLab personal/project/group access token: glpat- + 20 or more chars",
                        SecretPatterns.GITLAB_TOKEN),
                PatternDetector.checked("slack_token",
                        Hints.anyOf("xox", "xapp-"),
                        "Slack token: xoxb-/xoxp-/xoxa-/xoxr-/xoxs-/xoxe-/xoxo- or xapp- with dash-separated parts, "
                                + ">= 24 chars",
                        "(?<![A-Za-z0-9_\\-])(?:xox[abeoprs]|xapp)-[0-9A-Za-z]{1,128}+(?:-[0-9A-Za-z]{1,128}+){1,8}+",
                        0, token -> token.length() >= 24 && Entropy.hasLetterAndDigit(token.substring(5))),
                PatternDetector.of("slack_webhook_url",
                        Hints.anyOf("hooks.slack.com/"),
                        "Slack incoming webhook / workflow URL: hooks.slack.com/services|workflows|triggers/...",
                        SecretPatterns.SLACK_WEBHOOK_URL),
                PatternDetector.of("stripe_key",
                        Hints.anyOf("k_live_", "k_test_", "whsec_"),
                        "Stripe secret or restricted key (sk_live_, sk_test_, rk_live_, rk_test_) or webhook "
                                + "signing secret (whsec_)",
                        SecretPatterns.STRIPE_KEY),
                PatternDetector.of("google_api_key",
                        Hints.anyOf("AIza"),
                        "Google API key: AIza + 35 chars",
                        SecretPatterns.GOOGLE_API_KEY),
                PatternDetector.of("anthropic_api_key",
                        Hints.anyOf("sk-ant-"),
                        "Anthropic API key: sk-ant-<kind><2 digits>- + 32 or more chars",
                        SecretPatterns.ANTHROPIC_API_KEY),
                PatternDetector.checked("openai_api_key",
                        Hints.anyOf("sk-"),
                        "OpenAI-style API key: sk- (optionally proj-/svcacct-/admin-) + 32 or more random mixed-case "
                                + "chars with digits",
                        "(?<![A-Za-z0-9_\\-])sk-(?!ant-)([A-Za-z0-9_\\-]{32,}+)",
                        1, TokenChecks::isRandomMixedCase),
                PatternDetector.of("npm_token",
                        Hints.anyOf("npm_"),
                        "npm access token: npm_ + 36 alphanumerics",
                        SecretPatterns.NPM_TOKEN),
                PatternDetector.checked("jwt",
                        Hints.anyOf("ey"),
                        "JSON Web Token: three base64url segments whose header decodes to JSON with \"alg\"",
                        "(?<![A-Za-z0-9_\\-])(ey[A-Za-z0-9_\\-]{8,}+\\.[A-Za-z0-9_\\-]{2,}+\\.[A-Za-z0-9_\\-]*+)",
                        1, TokenChecks::isJwt),
                PatternDetector.checked("bearer_authorization",
                        Hints.anyOfIgnoringCase("bearer"),
                        "Bearer authorization value: 'Bearer <token>' with a token of >= 16 chars, letters and digits",
                        "(?i)(?<![A-Za-z0-9_])bearer[ \\t]++([A-Za-z0-9._~+/\\-]++=*+)",
                        1, TokenChecks::isBearerToken),
                PatternDetector.checked("basic_authorization",
                        Hints.anyOfIgnoringCase("basic"),
                        "Basic authorization value: 'Basic <base64>' decoding to printable user:password",
                        "(?i)(?<![A-Za-z0-9_])basic[ \\t]++([A-Za-z0-9+/]{4,}+=*+)",
                        1, TokenChecks::isBasicCredentials),
                PatternDetector.checked("url_password",
                        Hints.anyOf("://"),
                        "Password in a URL: scheme://user:password@host (placeholders such as *** or ${VAR} excepted)",
                        "(?<![A-Za-z0-9+.\\-])[A-Za-z][A-Za-z0-9+.\\-]{0,31}+://[^\\s/?#@:]{0,256}+:([^\\s/?#@]{1,256}+)@",
                        1, TokenChecks::isUrlPassword),
                new SecretAssignmentDetector());
    }
}
