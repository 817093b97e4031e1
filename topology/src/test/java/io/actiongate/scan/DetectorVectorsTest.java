package io.actiongate.scan;

import static io.actiongate.scan.Fake.ALNUM;
import static io.actiongate.scan.Fake.BASE64;
import static io.actiongate.scan.Fake.BASE64URL;
import static io.actiongate.scan.Fake.DASHES;
import static io.actiongate.scan.Fake.DIGITS;
import static io.actiongate.scan.Fake.HEX;
import static io.actiongate.scan.Fake.UPPER_ALNUM;
import static io.actiongate.scan.Fake.alnum;
import static io.actiongate.scan.Fake.b64;
import static io.actiongate.scan.Fake.chars;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Positive and negative vectors for every built-in detector, in text and as JSON members. */
class DetectorVectorsTest {

    private static final Map<String, Detector> DETECTORS = CredentialScanner.defaults().detectors().stream()
            .collect(Collectors.toMap(Detector::id, Function.identity()));

    /** detector id, expected to fire, input text. */
    static Stream<Arguments> textVectors() {
        String b64x40 = chars(BASE64, 40);
        return Stream.of(
                // PEM private keys
                arguments("pem_private_key", true, DASHES + "BEGIN RSA PRIVATE KEY" + DASHES + "\nMIIEow"),
                arguments("pem_private_key", true, DASHES + "BEGIN PRIVATE KEY" + DASHES),
                arguments("pem_private_key", true, "key:\n" + DASHES + "BEGIN OPENSSH PRIVATE KEY" + DASHES),
                arguments("pem_private_key", true, DASHES + "BEGIN EC PRIVATE KEY" + DASHES),
                arguments("pem_private_key", true, DASHES + "BEGIN ENCRYPTED PRIVATE KEY" + DASHES),
                arguments("pem_private_key", true, DASHES + "BEGIN PGP PRIVATE KEY BLOCK" + DASHES),
                arguments("pem_private_key", false, DASHES + "BEGIN PUBLIC KEY" + DASHES),
                arguments("pem_private_key", false, DASHES + "BEGIN CERTIFICATE" + DASHES),
                arguments("pem_private_key", false, DASHES + "BEGIN PGP PUBLIC KEY BLOCK" + DASHES),
                arguments("pem_private_key", false, "store the private key in the vault"),
                // AWS access key ids
                arguments("aws_access_key_id", true, "AKIA" + chars(UPPER_ALNUM, 16)),
                arguments("aws_access_key_id", true, "id=ASIA" + chars(UPPER_ALNUM, 16) + ";"),
                arguments("aws_access_key_id", true, "{\"k\":\"AROA" + chars(UPPER_ALNUM, 16) + "\"}"),
                arguments("aws_access_key_id", false, "AKIA" + chars(UPPER_ALNUM, 15)),
                arguments("aws_access_key_id", false, "AKIA" + chars(UPPER_ALNUM, 17)),
                arguments("aws_access_key_id", false, "akia" + chars(UPPER_ALNUM, 16).toLowerCase()),
                arguments("aws_access_key_id", false, "XAKIA" + chars(UPPER_ALNUM, 16)),
                // AWS secret keys in assignments
                arguments("aws_secret_access_key", true, "aws_secret_access_key = " + b64x40),
                arguments("aws_secret_access_key", true, "export AWS_SECRET_ACCESS_KEY=" + b64x40),
                arguments("aws_secret_access_key", true, "{\"SecretAccessKey\": \"" + b64x40 + "\"}"),
                arguments("aws_secret_access_key", false, "aws_secret_access_key = " + "a".repeat(40)),
                arguments("aws_secret_access_key", false, "aws_secret_access_key = " + chars(BASE64, 39)),
                arguments("aws_secret_access_key", false, b64x40),
                arguments("aws_secret_access_key", false, "aws_secret_access_key is required"),
                // GitHub
                arguments("github_token", true, "ghp_" + alnum(36)),
                arguments("github_token", true, "token gho_" + alnum(36)),
                arguments("github_token", true, "ghs_" + alnum(36)),
                arguments("github_token", true, "ghu_" + alnum(36)),
                arguments("github_token", true, "ghr_" + alnum(36)),
                arguments("github_token", true, "github_pat_" + alnum(22) + "_" + alnum(59)),
                arguments("github_token", false, "ghp_" + alnum(35)),
                arguments("github_token", false, "ghx_" + alnum(36)),
                arguments("github_token", false, "xghp_" + alnum(36)),
                arguments("github_token", false, "fine-grained tokens start with github_pat_ and are long"),
                // GitLab
                arguments("gitlab_token", true, "glpat-" + chars(ALNUM + "-_", 20)),
                arguments("gitlab_token", false, "glpat-short"),
                arguments("gitlab_token", false, "a token that starts with glpat-"),
                // Slack tokens
                arguments("slack_token", true, "xoxb-" + chars(DIGITS, 12) + "-" + chars(DIGITS, 13) + "-"
                        + alnum(24)),
                arguments("slack_token", true, "xoxp-" + chars(DIGITS, 11) + "-" + chars(DIGITS, 12) + "-"
                        + chars(DIGITS, 13) + "-" + chars(HEX, 32)),
                arguments("slack_token", true, "xoxa-2-" + alnum(40)),
                arguments("slack_token", true, "xoxr-" + chars(DIGITS, 10) + "-" + alnum(30)),
                arguments("slack_token", true, "xoxs-" + chars(DIGITS, 10) + "-" + alnum(30)),
                arguments("slack_token", false, "xoxb-not-a-token"),
                arguments("slack_token", false, "xoxb-"),
                arguments("slack_token", false, "xoxz-" + chars(DIGITS, 12) + "-" + alnum(24)),
                // Slack webhooks
                arguments("slack_webhook_url", true, "https://hooks.slack.com/services/T" + chars(UPPER_ALNUM, 8)
                        + "/B" + chars(UPPER_ALNUM, 8) + "/" + alnum(24)),
                arguments("slack_webhook_url", false, "https://hooks.slack.com/"),
                arguments("slack_webhook_url", false, "https://api.slack.com/services/T000/B000/how-to"),
                // Stripe
                arguments("stripe_key", true, "sk_live_" + alnum(24)),
                arguments("stripe_key", true, "rk_live_" + alnum(24)),
                arguments("stripe_key", true, "sk_test_" + alnum(24)),
                arguments("stripe_key", true, "whsec_" + alnum(32)),
                arguments("stripe_key", false, "pk_live_" + alnum(24)),
                arguments("stripe_key", false, "sk_live_short"),
                arguments("stripe_key", false, "task_live_" + alnum(24)),
                // Google
                arguments("google_api_key", true, "key=AIza" + chars(ALNUM + "-_", 35)),
                arguments("google_api_key", false, "AIza" + chars(ALNUM + "-_", 34)),
                arguments("google_api_key", false, "AIzaSy is how Google keys start"),
                // Anthropic
                arguments("anthropic_api_key", true, "sk-ant-api03-" + chars(BASE64URL, 93) + "AA"),
                arguments("anthropic_api_key", false, "sk-ant-api03-short"),
                arguments("anthropic_api_key", false, "sk-ant-"),
                // OpenAI-style
                arguments("openai_api_key", true, "sk-" + alnum(48)),
                arguments("openai_api_key", true, "OPENAI_API_KEY=sk-proj-" + chars(BASE64URL, 120)),
                arguments("openai_api_key", false, "sk-" + chars(HEX, 48)),
                arguments("openai_api_key", false, "sk-learn-is-a-python-library-for-machine-learning"),
                arguments("openai_api_key", false, "sk-" + alnum(20)),
                // npm
                arguments("npm_token", true, "//registry.npmjs.org/:_authToken=npm_" + alnum(36)),
                arguments("npm_token", false, "npm_" + alnum(35)),
                arguments("npm_token", false, "run npm_install_everything_before_starting_the_build"),
                // JWT
                arguments("jwt", true, Fake.jwt("{\"alg\":\"HS256\",\"typ\":\"JWT\"}")),
                arguments("jwt", true, "id_token=" + Fake.jwt("{\"typ\":\"JWT\", \"alg\":\"RS256\"}")),
                arguments("jwt", true, Fake.b64url("{\"alg\":\"none\"}") + "."
                        + Fake.b64url("{\"sub\":\"x\"}") + "."),
                arguments("jwt", false, Fake.jwt("{\"typ\":\"JWT\"}")),
                arguments("jwt", false, "eyJhbGciOi.eyJzdWIiOi.signature"),
                arguments("jwt", false, "ey" + alnum(20) + "." + alnum(20) + "." + alnum(20)),
                arguments("jwt", false, "version 1.2.3"),
                // Bearer
                arguments("bearer_authorization", true, "Authorization: Bearer " + alnum(32)),
                arguments("bearer_authorization", true, "bearer " + chars(BASE64URL + ".", 40)),
                arguments("bearer_authorization", false, "Bearer token required"),
                arguments("bearer_authorization", false, "Bearer YOUR_ACCESS_TOKEN_HERE"),
                arguments("bearer_authorization", false, "Bearer abc123"),
                arguments("bearer_authorization", false, "Bearer " + "ab12".repeat(8)),
                // Basic
                arguments("basic_authorization", true, "Authorization: Basic " + b64("alice:s3cr3t-pa55")),
                arguments("basic_authorization", true, "basic " + b64("user:p")),
                arguments("basic_authorization", false, "Basic " + b64("username")),
                arguments("basic_authorization", false, "Basic " + b64("user:")),
                arguments("basic_authorization", false, "Basic authentication is disabled"),
                // passwords in URLs
                arguments("url_password", true, "postgres://app:Zx9vQ2mL7pR4@db.internal:5432/app"),
                arguments("url_password", true, "see https://user:pass@example.com/"),
                arguments("url_password", true, "redis://:s3cretRedis@cache:6379"),
                arguments("url_password", false, "https://example.com:8443/path"),
                arguments("url_password", false, "https://user@example.com/"),
                arguments("url_password", false, "postgres://app:${DB_PASSWORD}@db/app"),
                arguments("url_password", false, "https://user:****@example.com"),
                arguments("url_password", false, "mailto:someone@example.com"),
                // assignments with high-entropy values
                arguments("secret_assignment", true, "\"password\": \"hunter2Xq9!zP4r#\""),
                arguments("secret_assignment", true, "api_key=" + alnum(32)),
                arguments("secret_assignment", true, "apikey: " + alnum(32)),
                arguments("secret_assignment", true, "client_secret: " + alnum(24)),
                arguments("secret_assignment", true, "DB_PASSWORD=Tr0ub4dor-3xyzQ!"),
                arguments("secret_assignment", true, "passwd='Zq8#mN2$vL5^kP'"),
                arguments("secret_assignment", true, "X-Api-Key: " + alnum(32)),
                arguments("secret_assignment", true, "private_key = '" + chars(BASE64, 44) + "'"),
                arguments("secret_assignment", true, "accessToken=" + alnum(30)),
                arguments("secret_assignment", true, "token: " + alnum(30)),
                arguments("secret_assignment", true, "--password=" + alnum(16)),
                arguments("secret_assignment", true, "{\"secret\":\"" + alnum(20) + "\"}"),
                arguments("secret_assignment", true, "client_secret=\"" + alnum(3000) + "\""),
                // an assignment behind a `word:` prefix is judged, not swallowed by the outer match
                arguments("secret_assignment", true, "Note: password=" + alnum(24)),
                arguments("secret_assignment", true, "x: db_password=" + alnum(24)),
                arguments("secret_assignment", true, "key: password: " + alnum(24)),
                arguments("secret_assignment", true, "here: aws_secret_access_key=" + chars(BASE64, 41)),
                arguments("secret_assignment", true, "note=\"see password=" + alnum(24) + "\""),
                arguments("secret_assignment", true, "Cookie: sid=" + alnum(32)),
                arguments("secret_assignment", true, "a".repeat(200) + "_password=" + alnum(24)),
                arguments("secret_assignment", false, "\"password\": \"please reset it\""),
                arguments("secret_assignment", false, "password=hunter2"),
                arguments("secret_assignment", false, "api_key=" + "a".repeat(20)),
                arguments("secret_assignment", false, "password: ${DB_PASSWORD}"),
                arguments("secret_assignment", false, "password: <your-password-here>"),
                arguments("secret_assignment", false, "next_page_token=" + alnum(32)),
                arguments("secret_assignment", false, "token_url=https://auth.example.com/oauth2/token"),
                arguments("secret_assignment", false, "max_tokens=4096"),
                arguments("secret_assignment", false, "username=" + alnum(32)),
                arguments("secret_assignment", false, "idempotency_key=" + alnum(32)),
                arguments("secret_assignment", false, "the password is in the vault"));
    }

    /** detector id, expected to fire, JSON member name, string value. */
    static Stream<Arguments> memberVectors() {
        return Stream.of(
                arguments("secret_assignment", true, "password", "hunter2Xq9!zP4r#"),
                arguments("secret_assignment", true, "client_secret", alnum(32)),
                arguments("secret_assignment", true, "apiKey", alnum(32)),
                arguments("secret_assignment", true, "x-api-key", alnum(32)),
                arguments("secret_assignment", true, "private_key", chars(BASE64, 44)),
                arguments("secret_assignment", true, "refresh_token", alnum(40)),
                arguments("secret_assignment", true, "passwd", alnum(14)),
                arguments("secret_assignment", true, "DB_PASSWORD", alnum(14)),
                arguments("secret_assignment", true, "Authorization", alnum(40)),
                arguments("secret_assignment", true, "passphrase", "Zq8#mN2$vL5^kP"),
                arguments("secret_assignment", true, "password", "Zq8#mN2$vL5^kP\n"),
                arguments("secret_assignment", false, "password", "please reset it"),
                arguments("secret_assignment", false, "password", "hunter2"),
                arguments("secret_assignment", false, "password", "${DB_PASSWORD}"),
                arguments("secret_assignment", false, "nextPageToken", alnum(32)),
                arguments("secret_assignment", false, "username", alnum(32)),
                arguments("secret_assignment", false, "token_type", "Bearer"),
                arguments("secret_assignment", false, "idempotency_key", alnum(32)),
                arguments("secret_assignment", false, "secretary", "Jane Doe"),
                arguments("aws_secret_access_key", true, "SecretAccessKey", chars(BASE64, 40)),
                arguments("aws_secret_access_key", true, "aws_secret_access_key", chars(BASE64, 40)),
                arguments("aws_secret_access_key", false, "SecretAccessKey", "a".repeat(40)),
                arguments("aws_secret_access_key", false, "description", chars(BASE64, 40)));
    }

    @ParameterizedTest(name = "[{index}] {0} fires={1}")
    @MethodSource("textVectors")
    void shouldFireExactlyOnItsPositiveTextVectors(String id, boolean fires, String text) {
        assertThat(DETECTORS).containsKey(id);
        assertThat(DETECTORS.get(id).matches(text)).as("%s on vector", id).isEqualTo(fires);
        if (fires) {
            assertThat(CredentialScanner.defaults().scan(text)).isPresent();
        }
    }

    @ParameterizedTest(name = "[{index}] {0} {2} fires={1}")
    @MethodSource("memberVectors")
    void shouldFireExactlyOnItsPositiveMemberVectors(String id, boolean fires, String name, String value) {
        assertThat(DETECTORS.get(id).matchesMember(name, value)).isEqualTo(fires);
        if (fires) {
            String json = "{\"" + name + "\": \"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}";
            assertThat(CredentialScanner.defaults().scanJson(json)).isPresent();
        }
    }
}
