package io.actiongate.scan;

import static io.actiongate.scan.Fake.UPPER_ALNUM;
import static io.actiongate.scan.Fake.alnum;
import static io.actiongate.scan.Fake.chars;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;

class CredentialScannerTest {

    private final CredentialScanner scanner = CredentialScanner.defaults();

    @Test
    void shouldReportDetectorAndJsonPointerOfNestedValue() {
        String json = "{\"method\":\"POST\",\"headers\":{\"Accept\":\"application/json\","
                + "\"Authorization\":\"Bearer " + alnum(40) + "\"}}";

        assertThat(scanner.scanJson(json)).contains(new Finding("bearer_authorization", "/headers/Authorization"));
    }

    @Test
    void shouldCheckMemberNameAndValueTogether() {
        String json = "{\"db\":{\"host\":\"db.internal\",\"password\":\"hunter2Xq9!zP4r#\"}}";

        assertThat(scanner.scanJson(json)).contains(new Finding("secret_assignment", "/db/password"));
    }

    @Test
    void shouldCheckArrayElementsAgainstTheNameOfTheMemberHoldingThem() {
        String json = "{\"user\":\"bob\",\"passwords\":[\"old one\",\"" + alnum(20) + "\"]}";

        assertThat(scanner.scanJson(json)).contains(new Finding("secret_assignment", "/passwords/1"));
        assertThat(scanner.scanJson("{\"notes\":[\"" + alnum(20) + "\"]}")).isEmpty();
    }

    @Test
    void shouldNotFireOnProseUnderASensitiveName() {
        String json = "{\"password\":\"please reset it\",\"summary\":\"reset the password for bob\","
                + "\"token\":\"see the docs\"}";

        assertThat(scanner.scanJson(json)).isEmpty();
    }

    @Test
    void shouldPointAtArrayElementsAndEscapePointerSegments() {
        String json = "{\"a/b~c\":[\"x\",{\"n\":1},\"AKIA" + chars(UPPER_ALNUM, 16) + "\"]}";

        assertThat(scanner.scanJson(json)).contains(new Finding("aws_access_key_id", "/a~1b~0c/2"));
    }

    @Test
    void shouldReportRootScalarAtEmptyPointer() {
        assertThat(scanner.scanJson("\"" + Fake.githubToken() + "\"")).contains(new Finding("github_token", ""));
    }

    @Test
    void shouldSeeEveryDuplicateMember() {
        String json = "{\"password\":\"hunter2Xq9!zP4r#\",\"password\":\"x\"}";

        assertThat(scanner.scanJson(json)).contains(new Finding("secret_assignment", "/password"));
    }

    @Test
    void shouldScanMemberNamesWithoutPuttingTheNameInTheLocation() {
        String token = Fake.githubToken();
        String json = "{\"ok\":1,\"nested\":{\"first\":true,\"" + token + "\":1}}";

        Optional<Finding> finding = scanner.scanJson(json);

        assertThat(finding).contains(new Finding("github_token", "/nested#name[1]"));
        assertThat(finding.orElseThrow().location()).doesNotContain(token);
    }

    @Test
    void shouldScanJsonEscapedValuesAfterUnescaping() {
        String json = "{\"k\":\"\\u0041KIA" + chars(UPPER_ALNUM, 16) + "\"}";

        assertThat(scanner.scanJson(json)).contains(new Finding("aws_access_key_id", "/k"));
    }

    @Test
    void shouldFindMultiLinePemInsideJsonString() {
        String json = "{\"file\":{\"content\":\"" + Fake.DASHES + "BEGIN OPENSSH PRIVATE KEY" + Fake.DASHES
                + "\\nb3BlbnNzaC1rZXktdjEAAAAA\\n\"}}";

        assertThat(scanner.scanJson(json)).contains(new Finding("pem_private_key", "/file/content"));
    }

    @Test
    void shouldFallBackToTextScanWhenInputIsNotJson() {
        String text = "{not json, token: " + Fake.githubToken();

        assertThat(scanner.scanJson(text)).contains(new Finding("github_token", "text"));
    }

    @Test
    void shouldFindSecretAfterLeadingValidJsonInTrailingGarbage() {
        String text = "{\"a\":1} password=hunter2Xq9!zP4r#";

        assertThat(scanner.scanJson(text)).contains(new Finding("secret_assignment", "text"));
    }

    @Test
    void shouldPassARealisticCleanProposalInput() {
        String json = "{\"to\":[\"alice@example.com\"],\"subject\":\"Quarterly report\","
                + "\"body\":\"Hi Alice, attached is the Q3 report. Let me know if the password reset worked.\","
                + "\"max_tokens\":4096,\"idempotency_key\":\"" + alnum(32) + "\","
                + "\"pageToken\":\"" + alnum(40) + "\",\"url\":\"https://example.com:8443/reports?id=42\","
                + "\"sha256\":\"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\","
                + "\"id\":\"123e4567-e89b-12d3-a456-426614174000\",\"version\":\"1.2.3\"}";

        assertThat(scanner.scanJson(json)).isEmpty();
        assertThat(scanner.scan(json)).isEmpty();
    }

    @Test
    void shouldReportTextLocationForPlainText() {
        assertThat(scanner.scan("curl -H 'Authorization: Basic " + Fake.b64("admin:Secr3t!") + "'"))
                .contains(new Finding("basic_authorization", "text"));
        assertThat(scanner.scan("nothing to see here")).isEmpty();
        assertThat(scanner.scan(null)).isEmpty();
        assertThat(scanner.scanJson(null)).isEmpty();
    }

    @Test
    void shouldFailClosedOnInputBeyondTheScanBound() {
        String huge = "a".repeat(CredentialScanner.MAX_SCAN_CHARS + 1);

        assertThat(scanner.scan(huge)).contains(new Finding(CredentialScanner.OVERSIZED_DETECTOR, "text"));
        assertThat(scanner.scanJson(huge)).contains(new Finding(CredentialScanner.OVERSIZED_DETECTOR, "text"));
    }

    @Test
    void shouldReportTheMostSpecificDetectorFirst() {
        // a JWT after "Bearer" is reported as a JWT; an AWS secret under its own name as an AWS secret
        assertThat(scanner.scan("Authorization: Bearer " + Fake.jwt("{\"alg\":\"HS256\"}")))
                .contains(new Finding("jwt", "text"));
        assertThat(scanner.scanJson("{\"aws_secret_access_key\":\"" + chars(Fake.BASE64, 40) + "\"}"))
                .contains(new Finding("aws_secret_access_key", "/aws_secret_access_key"));
    }

    @Test
    void shouldDocumentEveryDetectorWithAUniqueId() {
        List<Detector> detectors = scanner.detectors();
        Set<String> ids = new HashSet<>();
        for (Detector d : detectors) {
            assertThat(d.id()).matches("[a-z0-9_]+");
            assertThat(d.description()).isNotBlank();
            assertThat(ids.add(d.id())).as("unique id %s", d.id()).isTrue();
        }
        assertThat(ids).contains("pem_private_key", "aws_access_key_id", "aws_secret_access_key", "github_token",
                "slack_token", "slack_webhook_url", "stripe_key", "google_api_key", "openai_api_key",
                "anthropic_api_key", "npm_token", "gitlab_token", "jwt", "bearer_authorization",
                "basic_authorization", "url_password", "secret_assignment");
    }

    @Test
    void shouldUseOnlyTheGivenDetectors() {
        CredentialScanner onlyPem = CredentialScanner.of(List.of(scanner.detectors().get(0)));

        assertThat(onlyPem.scan(Fake.githubToken())).isEmpty();
        assertThat(onlyPem.detectors()).hasSize(1);
    }
}
