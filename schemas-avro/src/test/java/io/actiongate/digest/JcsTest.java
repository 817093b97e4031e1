package io.actiongate.digest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JcsTest {

    /** RFC 8785 section 3.2.2: the sample object with numbers, literals and an escaped string. */
    private static final String RFC_SAMPLE_INPUT = """
            {
              "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
              "string": "\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\"\\/",
              "literals": [null, true, false]
            }""";

    /** RFC 8785 section 3.2.3 (and 3.2.4): the canonical output of the sample. */
    private static final String RFC_SAMPLE_OUTPUT =
            "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],"
                    + "\"string\":\"\u20ac$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}";

    /** RFC 8785 section 3.2.4: the UTF-8 bytes of the canonical sample. */
    private static final String RFC_SAMPLE_UTF8_HEX = String.join("",
            "7b 22 6c 69 74 65 72 61 6c 73 22 3a 5b 6e 75 6c 6c 2c 74 72",
            "75 65 2c 66 61 6c 73 65 5d 2c 22 6e 75 6d 62 65 72 73 22 3a",
            "5b 33 33 33 33 33 33 33 33 33 2e 33 33 33 33 33 33 33 2c 31",
            "65 2b 33 30 2c 34 2e 35 2c 30 2e 30 30 32 2c 31 65 2d 32 37",
            "5d 2c 22 73 74 72 69 6e 67 22 3a 22 e2 82 ac 24 5c 75 30 30",
            "30 66 5c 6e 41 27 42 5c 22 5c 5c 5c 5c 5c 22 2f 22 7d").replace(" ", "");

    @Test
    void shouldCanonicalizeTheRfc8785SampleObject() {
        assertThat(Jcs.canonicalize(RFC_SAMPLE_INPUT)).isEqualTo(RFC_SAMPLE_OUTPUT);
    }

    @Test
    void shouldEncodeTheRfc8785SampleAsItsPublishedUtf8Bytes() {
        assertThat(HexFormat.of().formatHex(Jcs.canonicalBytes(RFC_SAMPLE_INPUT))).isEqualTo(RFC_SAMPLE_UTF8_HEX);
    }

    /** RFC 8785 section 3.2.3: names sort by their UTF-16 code units, not by code point or UTF-8 bytes. */
    @Test
    void shouldSortPropertiesByUtf16CodeUnitsAsTheRfcExampleShows() {
        String input = """
                {
                  "\\u20ac": "Euro Sign",
                  "\\r": "Carriage Return",
                  "\\ufb33": "Hebrew Letter Dalet With Dagesh",
                  "1": "One",
                  "\\ud83d\\ude00": "Emoji: Grinning Face",
                  "\\u0080": "Control",
                  "\\u00f6": "Latin Small Letter O With Diaeresis"
                }""";

        assertThat(Jcs.canonicalize(input)).isEqualTo("{"
                + "\"\\r\":\"Carriage Return\","
                + "\"1\":\"One\","
                + "\"\u0080\":\"Control\","
                + "\"\u00f6\":\"Latin Small Letter O With Diaeresis\","
                + "\"\u20ac\":\"Euro Sign\","
                + "\"\ud83d\ude00\":\"Emoji: Grinning Face\","
                + "\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}");
    }

    @Test
    void shouldSortNestedObjectsAndKeepArrayOrder() {
        assertThat(Jcs.canonicalize("[56, {\"d\": true, \"10\": null, \"1\": [ ]}]"))
                .isEqualTo("[56,{\"1\":[],\"10\":null,\"d\":true}]");
        assertThat(Jcs.canonicalize("{\"b\": {\"z\": 1, \"a\": [3, 2, 1]}, \"a\": \"\"}"))
                .isEqualTo("{\"a\":\"\",\"b\":{\"a\":[3,2,1],\"z\":1}}");
    }

    @Test
    void shouldSerializeNumbersThroughTheNearestDouble() {
        assertThat(Jcs.canonicalize("[1E30, 4.50, 0.000001, 1e-7, -0, 9007199254740993, 10, -0.0, 1.0]"))
                .isEqualTo("[1e+30,4.5,0.000001,1e-7,0,9007199254740992,10,0,1]");
        assertThat(Jcs.canonicalize("123456789012345678901234567890")).isEqualTo("1.2345678901234568e+29");
    }

    @Test
    void shouldFormatProgrammaticDoubleNodesLikeParsedOnes() {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        node.put("d", 1.0E23);
        node.put("f", 0.5f);
        node.put("l", Long.MAX_VALUE);
        assertThat(Jcs.canonicalize(node)).isEqualTo("{\"d\":1e+23,\"f\":0.5,\"l\":9223372036854776000}");
    }

    @Test
    void shouldEscapeControlCharactersAsLowercaseHexAndLeaveOtherCharactersAlone() {
        String input = "\"\\u0000\\u0001\\u001f\\u001F\\b\\t\\n\\f\\r\\u007f/\\/\\u00e9\\u2028\\ud83d\\ude00\\\"\\\\\"";

        assertThat(Jcs.canonicalize(input))
                .isEqualTo("\"\\u0000\\u0001\\u001f\\u001f\\b\\t\\n\\f\\r\u007f//\u00e9\u2028\ud83d\ude00\\\"\\\\\"");
    }

    @Test
    void shouldWriteNonAsciiAsUtf8Bytes() {
        assertThat(Jcs.canonicalBytes("\"\\u00e9\\ud83d\\ude00\""))
                .isEqualTo("\"\u00e9\ud83d\ude00\"".getBytes(StandardCharsets.UTF_8))
                .hasSize(1 + 2 + 4 + 1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"\\ud800\"", "\"a\\udc00b\"", "\"\\ud83d x\"", "\"\\ude00\\ud83d\"", "[\"\\ud83d\"]"})
    void shouldRejectLoneSurrogatesInStrings(String json) {
        assertThatThrownBy(() -> Jcs.canonicalize(json))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lone surrogate");
    }

    @Test
    void shouldRejectLoneSurrogatesInPropertyNames() {
        // the parser already refuses an escaped lone surrogate in a name; a node built in code reaches JCS itself
        assertThatThrownBy(() -> Jcs.canonicalize("{\"\\ud83d\": 1}")).isInstanceOf(IllegalArgumentException.class);
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        node.put("\udc00", 1);
        assertThatThrownBy(() -> Jcs.canonicalize(node))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lone surrogate");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "{", "{\"a\":1,\"a\":2}", "[1] [2]", "{\"a\":1} x", "NaN", "[01]",
        "{'a':1}", "[1,]", "\"\\x\"", "1e400", "-1e999"})
    void shouldRejectInvalidJson(String json) {
        assertThatThrownBy(() -> Jcs.canonicalize(json)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldNotEchoTheDocumentInParseErrors() {
        assertThatThrownBy(() -> Jcs.parse("{\"secret\": \"hunter2\", \"secret\": 1}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("not valid JSON")
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void shouldBeIdempotent() {
        String once = Jcs.canonicalize(RFC_SAMPLE_INPUT);
        assertThat(Jcs.canonicalize(once)).isEqualTo(once);
    }
}
