package io.actiongate.scan;

import static io.actiongate.scan.Fake.UPPER_ALNUM;
import static io.actiongate.scan.Fake.alnum;
import static io.actiongate.scan.Fake.chars;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.actiongate.digest.Jcs;

/**
 * {@link CredentialScanner#scanJson(String, com.fasterxml.jackson.databind.JsonNode)}, which walks the tree the gate
 * parsed already, finds exactly what the streaming {@link CredentialScanner#scanJson(String)} finds: the same
 * detector at the same location, for every vector of the detector tests and for documents that exercise the
 * locations (member names, array elements, escaped pointer segments, the first of several findings, deep and long
 * paths).
 */
class ParsedTreeScanTest {

    private static final CredentialScanner SCANNER = CredentialScanner.defaults();

    private static String quoted(String value) {
        return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }

    static Stream<String> documents() {
        String token = Fake.githubToken();
        String akia = "AKIA" + chars(UPPER_ALNUM, 16);
        List<String> docs = new ArrayList<>(List.of(
                "{\"headers\":{\"Authorization\":\"Bearer " + alnum(40) + "\"}}",
                "{\"db\":{\"host\":\"x\",\"password\":\"hunter2Xq9!zP4r#\"}}",
                "{\"passwords\":[\"short\",\"hunter2Xq9!zP4r#\"]}",
                "{\"notes\":[\"" + alnum(20) + "\"]}",
                "{\"a/b~c\":[1,{\"x\":2},\"" + akia + "\"]}",
                "{\"ok\":1,\"nested\":{\"first\":true,\"" + token + "\":1}}",
                "{\"k\":\"\\u0041KIA" + chars(UPPER_ALNUM, 16) + "\"}",
                "{\"file\":{\"content\":\"" + Fake.DASHES + "BEGIN OPENSSH PRIVATE KEY" + Fake.DASHES
                        + "\\nb3BlbnNzaC1rZXktdjEAAAAA\\n\"}}",
                "{\"to\":[\"alice@example.com\"],\"subject\":\"Quarterly report\",\"max_tokens\":4096,"
                        + "\"idempotency_key\":\"" + alnum(32) + "\",\"pageToken\":\"" + alnum(40) + "\","
                        + "\"url\":\"https://example.com:8443/reports?id=42\",\"flag\":null,\"n\":[1.5,true]}",
                "{\"aws_secret_access_key\":\"" + chars(Fake.BASE64, 40) + "\"}",
                // two findings: the first in document order is reported
                "{\"z\":\"" + token + "\",\"a\":\"" + akia + "\"}",
                "{\"a\":[[[],{}],[{\"b\":[\"x\",{\"c\":\"" + token + "\"}]}]]}",
                "{\"" + "n".repeat(300) + "\":{\"" + "m".repeat(300) + "\":\"" + token + "\"}}",
                "{\"list\":[{\"password\":\"hunter2Xq9!zP4r#\"}],\"other\":\"x\"}",
                "{\"outer\":{\"secrets\":[[\"hunter2Xq9!zP4r#\"]]}}",
                "{}",
                "{\"empty\":\"\",\"array\":[],\"object\":{}}"));
        DetectorVectorsTest.textVectors().map(a -> (String) a.get()[2])
                .forEach(text -> docs.add("{\"text\":" + quoted(text) + ",\"list\":[" + quoted(text) + "]}"));
        DetectorVectorsTest.memberVectors().map(Arguments::get)
                .forEach(v -> docs.add("{\"ok\":true,\"" + v[2] + "\":" + quoted((String) v[3]) + "}"));
        return docs.stream();
    }

    @ParameterizedTest
    @MethodSource("documents")
    void shouldFindWhatTheStreamingScanFinds(String json) {
        Optional<Finding> streamed = SCANNER.scanJson(json);

        assertThat(SCANNER.scanJson(json, Jcs.parse(json))).isEqualTo(streamed);
    }

    @Test
    void shouldFindSecretsInMostDocumentsSoTheComparisonMeansSomething() {
        List<String> docs = documents().toList();
        long found = docs.stream().filter(json -> SCANNER.scanJson(json, Jcs.parse(json)).isPresent()).count();

        assertThat(found).isGreaterThan(docs.size() / 2).isLessThan(docs.size());
    }

    @Test
    void shouldWalkTheGivenTreeRatherThanParseTheTextAgain() {
        String clean = "{\"note\":\"hello\"}";
        String withToken = "{\"note\":\"" + Fake.githubToken() + "\"}";

        assertThat(SCANNER.scanJson(clean, Jcs.parse(withToken))).contains(new Finding("github_token", "/note"));
        assertThat(SCANNER.scanJson(withToken, Jcs.parse(clean))).isEmpty();
    }

    @Test
    void shouldStillBoundTheWorkByTheTextAndScanTextWithoutATree() {
        String huge = "{\"a\":\"" + "x".repeat(CredentialScanner.MAX_SCAN_CHARS) + "\"}";
        String notJson = "{not json, token: " + Fake.githubToken();

        assertThat(SCANNER.scanJson(huge, Jcs.parse("{}")))
                .contains(new Finding(CredentialScanner.OVERSIZED_DETECTOR, CredentialScanner.TEXT_LOCATION));
        assertThat(SCANNER.scanJson(notJson, null)).contains(new Finding("github_token", "text"));
        assertThat(SCANNER.scanJson(null, null)).isEmpty();
    }
}
