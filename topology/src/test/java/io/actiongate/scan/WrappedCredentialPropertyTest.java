package io.actiongate.scan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.UnaryOperator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.arbitraries.StringArbitrary;

/**
 * Every token shape a detector knows is found inside every wrapper text takes around it, and an
 * assignment ({@code password=...}) inside an outer {@code word: ...} is not swallowed by the outer match ("Note:
 * password=..." was admitted). Property-based: jqwik draws the credential, the wrapper and the words around it, and
 * shrinks a failure to its smallest case.
 */
class WrappedCredentialPropertyTest {

    private static final CredentialScanner SCANNER = CredentialScanner.defaults();
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A credential as an attacker or a careless agent writes it, and the detector expected to see it. */
    record Credential(String text, String detector) {
        @Override
        public String toString() {
            return detector + " credential"; // jqwik prints samples: never the fake token itself
        }
    }

    /** Text around a credential: a name, a quoting, a line of some format. */
    record Wrapper(String form, UnaryOperator<String> wrap) {
        @Override
        public String toString() {
            return form;
        }
    }

    @Property(tries = 600)
    void shouldFindEveryCredentialShapeInsideEveryWrapper(@ForAll("credentials") Credential credential,
            @ForAll("wrappers") Wrapper wrapper) {
        String text = wrapper.wrap().apply(credential.text());

        Optional<Finding> asText = SCANNER.scan(text);
        Optional<Finding> asJsonString = SCANNER.scanJson(jsonObject("note", text));

        assertThat(asText).as("scan of %s in %s", credential, wrapper).isPresent();
        assertThat(asJsonString).as("scanJson of %s in %s as a JSON string", credential, wrapper).isPresent();
    }

    @Property(tries = 200)
    void shouldFindAnAssignmentBehindAnyWordPrefix(@ForAll("words") String word, @ForAll("sensitiveNames") String name,
            @ForAll("secretValues") String value, @ForAll("separators") String separator) {
        String text = word + ": " + name + separator + value;

        assertThat(SCANNER.scan(text)).as("%s: %s%s<value>", word, name, separator)
                .map(Finding::detector).contains(SecretAssignmentDetector.ID);
    }

    @Provide
    Arbitrary<Credential> credentials() {
        StringArbitrary alnum = Arbitraries.strings().withCharRange('a', 'z').withCharRange('A', 'Z')
                .withCharRange('0', '9');
        StringArbitrary upperAlnum = Arbitraries.strings().withCharRange('A', 'Z').withCharRange('0', '9');
        StringArbitrary digits = Arbitraries.strings().numeric();
        Arbitrary<Credential> github = Combinators.combine(Arbitraries.of("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
                alnum.ofLength(36)).as((p, t) -> new Credential(p + t, "github_token"));
        Arbitrary<Credential> aws = Combinators.combine(Arbitraries.of("AKIA", "ASIA", "AROA", "AIDA"),
                upperAlnum.ofLength(16)).as((p, t) -> new Credential(p + t, "aws_access_key_id"));
        Arbitrary<Credential> slack = Combinators.combine(Arbitraries.of("xoxb-", "xoxp-"), digits.ofLength(12),
                digits.ofLength(13), alnum.ofLength(24).filter(Entropy::hasLetterAndDigit))
                .as((p, a, b, c) -> new Credential(p + a + "-" + b + "-" + c, "slack_token"));
        Arbitrary<Credential> jwt = Arbitraries.of("HS256", "RS256", "ES256", "none")
                .map(alg -> new Credential(Fake.jwt("{\"alg\":\"" + alg + "\",\"typ\":\"JWT\"}"), "jwt"));
        Arbitrary<Credential> pem = Arbitraries.of("RSA ", "EC ", "OPENSSH ", "ENCRYPTED ", "")
                .map(kind -> new Credential(Fake.DASHES + "BEGIN " + kind + "PRIVATE KEY" + Fake.DASHES,
                        "pem_private_key"));
        Arbitrary<Credential> assignment = Combinators.combine(sensitiveNames(), separators(), secretValues())
                .as((n, s, v) -> new Credential(n + s + v, SecretAssignmentDetector.ID));
        Arbitrary<Credential> awsSecret = Combinators.combine(
                Arbitraries.of("aws_secret_access_key", "AWS_SECRET_ACCESS_KEY", "SecretAccessKey"),
                Arbitraries.of("=", ": ", " = "),
                Arbitraries.strings().withCharRange('a', 'z').withCharRange('A', 'Z').withCharRange('0', '9')
                        .withChars('+', '/').ofLength(40).filter(v -> Entropy.bitsPerChar(v) >= 3.5))
                .as((n, s, v) -> new Credential(n + s + v, "aws_secret_access_key"));
        return Arbitraries.oneOf(github, aws, slack, jwt, pem, assignment, awsSecret);
    }

    @Provide
    Arbitrary<Wrapper> wrappers() {
        return Combinators.combine(words(), Arbitraries.of(WRAPPERS)).as((word, form) -> form.with(word));
    }

    /** The wrappers the scanner's DESIGN.md names, each around any word. */
    private enum Form {
        ALONE("%s"),
        YAML("WORD: %s"),
        YAML_QUOTED("WORD: \"%s\""),
        YAML_SINGLE_QUOTED("WORD: '%s'"),
        YAML_NESTED("key: WORD: %s"),
        YAML_BLOCK("WORD:\n  %s\n"),
        ASSIGNED("WORD=%s"),
        ASSIGNED_QUOTED("WORD=\"%s\""),
        JSON_MEMBER("{\"WORD\": \"%s\"}"),
        QUERY("https://api.example.org/v1/items?WORD=1&%s&page=2"),
        HEADER("X-WORD: %s\r\nAccept: */*"),
        SHELL_EXPORT("export %s"),
        SHELL_EXPORT_ASSIGNED("export WORD=\"%s\""),
        SENTENCE("Please use %s for WORD."),
        FLAG("--WORD %s");

        private final String template;

        Form(String template) {
            this.template = template;
        }

        Wrapper with(String word) {
            return new Wrapper(name().toLowerCase(Locale.ROOT) + "[" + word + "]",
                    credential -> template.replace("WORD", word).replace("%s", credential));
        }
    }

    private static final List<Form> WRAPPERS = List.of(Form.values());

    @Provide
    Arbitrary<String> words() {
        return Arbitraries.oneOf(Arbitraries.of("Note", "x", "key", "here", "db", "config", "Authorization-Hint"),
                Arbitraries.strings().withCharRange('a', 'z').withCharRange('A', 'Z').ofMinLength(1).ofMaxLength(10));
    }

    @Provide
    Arbitrary<String> sensitiveNames() {
        return Arbitraries.of("password", "db_password", "DB_PASSWORD", "passwd", "passphrase", "client_secret",
                "api_key", "apiKey", "X-Api-Key", "access_token", "authToken", "private_key", "credentials",
                "aws_secret_access_key", "session_cookie", "--password");
    }

    @Provide
    Arbitrary<String> separators() {
        return Arbitraries.of("=", ": ", ":", " = ", "=\"", ": '");
    }

    @Provide
    Arbitrary<String> secretValues() {
        return Arbitraries.strings().withCharRange('a', 'z').withCharRange('A', 'Z').withCharRange('0', '9')
                .withChars('!', '#', '%', '^', '*', '-', '_').ofMinLength(16).ofMaxLength(48)
                .filter(Entropy::isHighEntropySecret).filter(v -> !Placeholders.isPlaceholder(v));
    }

    private static String jsonObject(String name, String value) {
        try {
            return JSON.writeValueAsString(java.util.Map.of(name, value));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
