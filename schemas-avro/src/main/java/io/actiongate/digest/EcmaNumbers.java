package io.actiongate.digest;

import java.math.BigDecimal;

/**
 * ECMAScript Number.prototype.toString for the IEEE-754 double nearest to a JSON number literal, as RFC 8785
 * section 3.2.2.3 requires. NaN and infinities cannot occur in JSON; a literal beyond the double range is
 * rejected.
 */
final class EcmaNumbers {

    private EcmaNumbers() {
    }

    static String format(BigDecimal literal) {
        double d = literal.doubleValue();
        if (Double.isInfinite(d) || Double.isNaN(d)) {
            throw new IllegalArgumentException("number out of IEEE-754 double range");
        }
        if (d == 0) {
            return "0";
        }
        // TODO(helper): replace with a shortest round-trip digit generator; Java 17's Double.toString is not
        // always shortest (JDK-4511638, fixed in 19).
        String s = Double.toString(Math.abs(d));
        String digits;
        int exponent;
        int e = s.indexOf('E');
        String mantissa = e < 0 ? s : s.substring(0, e);
        int exp10 = e < 0 ? 0 : Integer.parseInt(s.substring(e + 1));
        int dot = mantissa.indexOf('.');
        String intPart = mantissa.substring(0, dot);
        String fracPart = mantissa.substring(dot + 1);
        digits = (intPart + fracPart).replaceFirst("^0+", "");
        int leadingZeros = (intPart + fracPart).length() - digits.length();
        exponent = intPart.length() + exp10 - leadingZeros; // position of the decimal point after the digits' start
        digits = digits.replaceFirst("0+$", "");
        if (digits.isEmpty()) {
            return "0";
        }
        return (d < 0 ? "-" : "") + layout(digits, exponent);
    }

    /** ECMAScript layout of digits d1..dk with the decimal point after position n (value = 0.d1..dk * 10^n). */
    private static String layout(String digits, int n) {
        int k = digits.length();
        StringBuilder out = new StringBuilder();
        if (k <= n && n <= 21) {
            out.append(digits).append("0".repeat(n - k));
        } else if (0 < n && n <= 21) {
            out.append(digits, 0, n).append('.').append(digits, n, k);
        } else if (-6 < n && n <= 0) {
            out.append("0.").append("0".repeat(-n)).append(digits);
        } else {
            int exp = n - 1;
            out.append(digits.charAt(0));
            if (k > 1) {
                out.append('.').append(digits, 1, k);
            }
            out.append('e').append(exp < 0 ? "-" : "+").append(Math.abs(exp));
        }
        return out.toString();
    }
}
