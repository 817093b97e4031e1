package io.actiongate.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

/** A JSON failure is described by kind and position, never by the text that failed. */
class JsonErrorsTest {

    private static final ObjectMapper STRICT = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /** Token shapes made at run time, so that the repository holds none. */
    static List<String> tokens() {
        Random r = new Random(42);
        String alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        StringBuilder a = new StringBuilder();
        for (int i = 0; i < 40; i++) {
            a.append(alnum.charAt(r.nextInt(alnum.length())));
        }
        String s = a.toString();
        return List.of("ghp_" + s.substring(0, 36), "AKIA" + s.substring(0, 16).toUpperCase(),
                "xoxb-1234567890-" + s.substring(0, 24), "eyJhbGciOiJIUzI1NiJ9." + s + "." + s,
                "-----BEGIN RSA PRIVATE KEY-----", "password=" + s.substring(0, 20));
    }

    @Test
    void shouldNameKindAndPositionButNeverTheTextOfEveryFailure() {
        for (String token : tokens()) {
            String quoted = "\"" + token + "\"";
            List<String[]> bodies = List.of(
                    new String[] {"{\"body\":" + token + "}", "unrecognized token|unexpected character"},
                    new String[] {"{" + quoted + ":1," + quoted + ":2}", "duplicate member"},
                    new String[] {"{\"a\":{\"x\":1,\"x\":" + quoted + "}, \"" + token + "\":1, \"" + token + "\":2}",
                            "duplicate member"},
                    new String[] {"{\"body\":\"" + token, "unexpected end of input"},
                    new String[] {"{\"body\":1} " + token, "trailing data|unrecognized token|unexpected character"},
                    new String[] {"{\"body\":\"" + token + "\n\"}", "control character"},
                    new String[] {"{" + token + ":1}", "unexpected character"},
                    new String[] {"[1, 2, " + token + "]", "unrecognized token|unexpected character"});
            for (String[] body : bodies) {
                JacksonException e = failure(body[0]);
                String described = JsonErrors.describe(e);
                assertThat(described).as("%s", body[0]).doesNotContain(token)
                        .doesNotContain(token.substring(0, Math.min(8, token.length())))
                        .containsPattern(body[1]).containsPattern("line \\d+, column \\d+ \\(offset \\d+\\)");
            }
        }
    }

    @Test
    void shouldGiveTheOffsetOfADuplicateMember() {
        String body = "{\"a\":1,\"b\":2,\"a\":3}";

        String described = JsonErrors.describe(failure(body));

        assertThat(JsonErrors.kind(failure(body))).isEqualTo(JsonErrors.Kind.DUPLICATE_MEMBER);
        assertThat(described).startsWith("duplicate member at line 1, column ");
    }

    @Test
    void shouldReadOffsetsOfBytesAsOfText() throws Exception {
        byte[] body = "{\"x\": nope}".getBytes(StandardCharsets.UTF_8);
        try {
            STRICT.readTree(body);
            fail("parsed");
        } catch (JacksonException e) {
            assertThat(JsonErrors.describe(e)).isEqualTo("unrecognized token at line 1, column 7 (offset 6)");
        }
    }

    private static JacksonException failure(String body) {
        try {
            STRICT.readTree(body);
        } catch (JacksonException e) {
            return e;
        }
        throw new AssertionError("parsed: " + body);
    }
}
