package io.actiongate.connector.smtp;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class EmailInputTest {

    static final Set<String> ALLOWED = Set.of("example.com");

    static String json(String to, String subject, String body) {
        return "{\"to\":" + to + ",\"subject\":" + subject + ",\"body\":" + body + "}";
    }

    static Stream<Arguments> rejected() {
        return Stream.of(
                Arguments.of("two recipients", json("\"a@example.com,b@example.com\"", "\"s\"", "\"b\"")),
                Arguments.of("semicolon list", json("\"a@example.com;b@example.com\"", "\"s\"", "\"b\"")),
                Arguments.of("recipient array", json("[\"a@example.com\"]", "\"s\"", "\"b\"")),
                Arguments.of("display name", json("\"Alice <a@example.com>\"", "\"s\"", "\"b\"")),
                Arguments.of("group syntax", json("\"team: a@example.com;\"", "\"s\"", "\"b\"")),
                Arguments.of("CRLF in to", json("\"a@example.com\\r\\nBcc: x@evil.com\"", "\"s\"", "\"b\"")),
                Arguments.of("LF in subject", json("\"a@example.com\"", "\"hi\\nBcc: x@evil.com\"", "\"b\"")),
                Arguments.of("CR in subject", json("\"a@example.com\"", "\"hi\\rthere\"", "\"b\"")),
                Arguments.of("NUL in body", json("\"a@example.com\"", "\"s\"", "\"b\\u0000\"")),
                Arguments.of("subject 81", json("\"a@example.com\"", "\"" + "s".repeat(81) + "\"", "\"b\"")),
                Arguments.of("body 601", json("\"a@example.com\"", "\"s\"", "\"" + "b".repeat(601) + "\"")),
                Arguments.of("empty subject", json("\"a@example.com\"", "\" \"", "\"b\"")),
                Arguments.of("domain not allowed", json("\"a@evil.com\"", "\"s\"", "\"b\"")),
                Arguments.of("subdomain not implied", json("\"a@mail.example.com\"", "\"s\"", "\"b\"")),
                Arguments.of("lookalike domain", json("\"a@example.com.evil.com\"", "\"s\"", "\"b\"")),
                Arguments.of("no domain", json("\"alice\"", "\"s\"", "\"b\"")),
                Arguments.of("cc field", "{\"to\":\"a@example.com\",\"subject\":\"s\",\"body\":\"b\",\"cc\":\"c@example.com\"}"),
                Arguments.of("bcc field", "{\"to\":\"a@example.com\",\"subject\":\"s\",\"body\":\"b\",\"bcc\":\"c@example.com\"}"),
                Arguments.of("attachments field", "{\"to\":\"a@example.com\",\"subject\":\"s\",\"body\":\"b\",\"attachments\":[]}"),
                Arguments.of("html field", "{\"to\":\"a@example.com\",\"subject\":\"s\",\"body\":\"b\",\"html\":\"<b>x</b>\"}"),
                Arguments.of("missing body", "{\"to\":\"a@example.com\",\"subject\":\"s\"}"),
                Arguments.of("number body", json("\"a@example.com\"", "\"s\"", "5")),
                Arguments.of("duplicate to", "{\"to\":\"a@example.com\",\"to\":\"b@evil.com\",\"subject\":\"s\",\"body\":\"b\"}"),
                Arguments.of("not an object", "[]"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rejected")
    void shouldRejectEverythingButOneAllowListedPlainTextMail(String rule, String json) {
        assertThat(EmailInput.parse(json, ALLOWED).input()).as(rule).isNull();
        assertThat(EmailInput.parse(json, ALLOWED).violation()).isNotBlank();
    }

    static Stream<Arguments> accepted() {
        return Stream.of(
                Arguments.of("simple", json("\"a@example.com\"", "\"s\"", "\"b\"")),
                Arguments.of("upper-case domain", json("\"a@EXAMPLE.com\"", "\"s\"", "\"b\"")),
                Arguments.of("plus address", json("\"a.b+ops@example.com\"", "\"s\"", "\"b\"")),
                Arguments.of("subject 80", json("\"a@example.com\"", "\"" + "s".repeat(80) + "\"", "\"b\"")),
                Arguments.of("body 600 with newlines", json("\"a@example.com\"", "\"s\"", "\""
                        + "line\\n".repeat(100) + "\"")),
                Arguments.of("unicode subject", json("\"a@example.com\"", "\"D\u00e9ploiement termin\u00e9\"", "\"ok\"")),
                Arguments.of("empty body", json("\"a@example.com\"", "\"s\"", "\"\"")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("accepted")
    void shouldAcceptOneAllowListedPlainTextMail(String rule, String json) {
        assertThat(EmailInput.parse(json, ALLOWED).violation()).as(rule).isNull();
    }
}
