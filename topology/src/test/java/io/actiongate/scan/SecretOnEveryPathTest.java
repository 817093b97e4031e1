package io.actiongate.scan;

import static io.actiongate.scan.Fake.ALNUM;
import static io.actiongate.scan.Fake.UPPER_ALNUM;
import static io.actiongate.scan.Fake.alnum;
import static io.actiongate.scan.Fake.chars;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.actiongate.secrets.Redaction;

/**
 * One secret, three paths: the gate's scanner refuses a proposal holding it, a connector's error excerpt
 * ({@link Redaction#snippet}) and the executor's and reconciler's second fence ({@link Redaction#redact}) both mask it
 * with the same {@link Redaction#MASK}, and a receipt id holding it is not published as it is.
 */
class SecretOnEveryPathTest {

    private static Map<String, String> secrets() {
        return Map.of(
                "aws_access_key_id", "AKIA" + chars(UPPER_ALNUM, 16),
                "github_token", Fake.githubToken(),
                "gitlab_token", "glpat-" + alnum(20),
                "stripe_key", "sk_live_" + chars(ALNUM, 24),
                "google_api_key", "AIza" + chars(ALNUM, 35),
                "npm_token", "npm_" + chars(ALNUM, 36),
                "anthropic_api_key", "sk-ant-api03-" + chars(ALNUM, 40),
                "bearer_authorization", "Bearer " + alnum(24) + "9aZ");
    }

    @Test
    void shouldRefuseAndMaskTheSameSecretOnEveryPath() {
        CredentialScanner scanner = CredentialScanner.defaults();
        secrets().forEach((kind, secret) -> {
            String text = "provider said: " + secret + " (request 42)";
            String token = secret.startsWith("Bearer ") ? secret.substring("Bearer ".length()) : secret;

            assertThat(scanner.scan(text)).as("scanner on %s", kind).isPresent();
            assertThat(Redaction.snippet(text, 500, List.of())).as("connector excerpt of %s", kind)
                    .doesNotContain(token).contains(Redaction.MASK).contains("request 42");
            assertThat(Redaction.redact(text)).as("second fence of %s", kind)
                    .doesNotContain(token).contains(Redaction.MASK).contains("request 42");
            if (!kind.equals("bearer_authorization")) { // a bearer token without its scheme is any random id
                assertThat(Redaction.receiptId(token)).as("receipt id of %s", kind).isNotEqualTo(token);
                assertThat(Redaction.identifier(token, 500, List.of())).as("identifier of %s", kind).isNull();
            }
        });
    }

    @Test
    void shouldKeepWhatNoPathCallsASecret() {
        String text = "order 42 shipped to alice@example.com, tracking 7f0c2a52";

        assertThat(CredentialScanner.defaults().scan(text)).isEmpty();
        assertThat(Redaction.snippet(text, 500, List.of())).isEqualTo(text);
        assertThat(Redaction.redact(text)).isEqualTo(text);
        assertThat(Redaction.receiptId("7f0c2a52-3f5e-4bb8-9d4c-1b2e8f0a9c11"))
                .isEqualTo("7f0c2a52-3f5e-4bb8-9d4c-1b2e8f0a9c11");
    }
}
