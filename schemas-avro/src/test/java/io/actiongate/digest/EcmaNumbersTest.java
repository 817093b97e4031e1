package io.actiongate.digest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EcmaNumbersTest {

    /** RFC 8785 Appendix B: IEEE-754 bit patterns and their required text (NaN and Infinity cannot occur). */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "0000000000000000, 0",
        "8000000000000000, 0",
        "0000000000000001, 5e-324",
        "8000000000000001, -5e-324",
        "7fefffffffffffff, 1.7976931348623157e+308",
        "ffefffffffffffff, -1.7976931348623157e+308",
        "4340000000000000, 9007199254740992",
        "c340000000000000, -9007199254740992",
        "4430000000000000, 295147905179352830000",
        "44b52d02c7e14af5, 9.999999999999997e+22",
        "44b52d02c7e14af6, 1e+23",
        "44b52d02c7e14af7, 1.0000000000000001e+23",
        "444b1ae4d6e2ef4e, 999999999999999700000",
        "444b1ae4d6e2ef4f, 999999999999999900000",
        "444b1ae4d6e2ef50, 1e+21",
        "3eb0c6f7a0b5ed8c, 9.999999999999997e-7",
        "3eb0c6f7a0b5ed8d, 0.000001",
        "41b3de4355555553, 333333333.3333332",
        "41b3de4355555554, 333333333.33333325",
        "41b3de4355555555, 333333333.3333333",
        "41b3de4355555556, 333333333.3333334",
        "41b3de4355555557, 333333333.33333343",
        "becbf647612f3696, -0.0000033333333333333333",
        "43143ff3c1cb0959, 1424953923781206.2",
    })
    void shouldFormatRfc8785AppendixBSamples(String hexBits, String expected) {
        double d = Double.longBitsToDouble(Long.parseUnsignedLong(hexBits, 16));

        assertThat(EcmaNumbers.format(d)).isEqualTo(expected);
        assertThat(EcmaNumbers.format(new BigDecimal(d))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "1E30, 1e+30",
        "4.50, 4.5",
        "2e-3, 0.002",
        "0.000001, 0.000001",
        "1e-7, 1e-7",
        "-0, 0",
        "-0.0, 0",
        "9007199254740993, 9007199254740992",
        "1e21, 1e+21",
        "1e20, 100000000000000000000",
        "123e-20, 1.23e-18",
        "0.1, 0.1",
        "-1.5, -1.5",
        "100, 100",
        "333333333.33333329, 333333333.3333333",
        "0.000000000000000000000000001, 1e-27",
        "1e-400, 0",
    })
    void shouldFormatLiteralsViaTheNearestDouble(String literal, String expected) {
        assertThat(EcmaNumbers.format(new BigDecimal(literal))).isEqualTo(expected);
    }

    /** Doubles for which Java 17's Double.toString gives more digits than needed (JDK-4511638). */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "1E23, 1e+23",                           // Java 17: 9.999999999999999E22
        "2E23, 2e+23",                           // Java 17: 1.9999999999999998E23
        "8.41E21, 8.41e+21",                     // Java 17: 8.409999999999999E21
        "2.82879384806159E17, 282879384806159000", // Java 17: 2.82879384806159008E17
        "3.160701594026542E17, 316070159402654200", // Java 17: 3.1607015940265421E17
    })
    void shouldProduceShortestDigitsWhereJava17DoubleToStringDoesNot(String literal, String expected) {
        assertThat(EcmaNumbers.format(Double.parseDouble(literal))).isEqualTo(expected);
    }

    @Test
    void shouldRoundTripAndBeNoLongerThanAnyOtherRoundTrippingDigitsForRandomDoubles() {
        SplittableRandom random = new SplittableRandom(8785);
        for (int i = 0; i < 5_000; i++) {
            double d = Double.longBitsToDouble(random.nextLong());
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                continue;
            }
            String text = EcmaNumbers.format(d);
            assertThat(Double.parseDouble(text)).as(text).isEqualTo(d == 0 ? 0.0 : d);
            int digits = significantDigits(text);
            // no decimal with fewer digits reads back as d
            if (digits > 1) {
                BigDecimal exact = new BigDecimal(Math.abs(d));
                for (java.math.RoundingMode mode : new java.math.RoundingMode[] {
                        java.math.RoundingMode.FLOOR, java.math.RoundingMode.CEILING}) {
                    BigDecimal shorter = exact.round(new java.math.MathContext(digits - 1, mode));
                    assertThat(shorter.doubleValue()).as("%s is not shortest", text).isNotEqualTo(Math.abs(d));
                }
            }
        }
    }

    private static int significantDigits(String text) {
        String mantissa = text.replace("-", "").split("e")[0].replace(".", "");
        return mantissa.replaceFirst("^0+", "").replaceFirst("0+$", "").length();
    }

    @Test
    void shouldPrintIntegersBelowTwoToThe53AsPlainDigits() {
        assertThat(EcmaNumbers.format(9007199254740991.0)).isEqualTo("9007199254740991");
        assertThat(EcmaNumbers.format(-1.0E15)).isEqualTo("-1000000000000000");
        assertThat(EcmaNumbers.format(1.0)).isEqualTo("1");
        assertThat(EcmaNumbers.format(0.5)).isEqualTo("0.5");
        assertThat(EcmaNumbers.format(1.0E21)).isEqualTo("1e+21");
    }

    @Test
    void shouldRejectNonFiniteValues() {
        assertThatThrownBy(() -> EcmaNumbers.format(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EcmaNumbers.format(Double.POSITIVE_INFINITY))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EcmaNumbers.format(new BigDecimal("1e400")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("range");
    }
}
