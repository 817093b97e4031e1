package io.actiongate.digest;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * ECMAScript {@code Number.prototype.toString} for the IEEE-754 double nearest to a JSON number literal, as
 * RFC 8785 section 3.2.2.3 requires. NaN and infinities cannot occur in JSON; a literal beyond the double range
 * is rejected.
 *
 * <p>Java 17's {@link Double#toString(double)} does not always produce the shortest digits (JDK-4511638, fixed
 * in Java 19), so the digits are searched here: for each precision from 1 to 17 the two decimals of that
 * precision around the exact binary value are tried, and the first precision at which one of them reads back
 * as the same double wins. Of two that both do, the nearer to the exact value wins, then the even one
 * (ECMA-262 Number::toString, step 5). Slow next to Ryu, but exact, and digests are computed over small inputs.
 */
final class EcmaNumbers {

    /** 17 significant digits always identify a double. */
    private static final int MAX_DIGITS = 17;

    /** 2^53: below it every integer is a double, and ECMAScript prints it without exponent. */
    private static final double SAFE_INTEGER_LIMIT = 9007199254740992.0;

    private EcmaNumbers() {
    }

    /** The ECMAScript string of the double nearest to {@code literal}. */
    static String format(BigDecimal literal) {
        return format(literal.doubleValue());
    }

    /** The ECMAScript string of {@code d}; throws {@link IllegalArgumentException} for NaN and infinities. */
    static String format(double d) {
        if (Double.isInfinite(d) || Double.isNaN(d)) {
            throw new IllegalArgumentException("number out of IEEE-754 double range");
        }
        if (d == 0) {
            return "0"; // also -0: ECMAScript prints it as "0"
        }
        if (Math.abs(d) < SAFE_INTEGER_LIMIT && d == Math.rint(d)) {
            return Long.toString((long) d); // the common case: an exact integer prints as its digits
        }
        BigDecimal shortest = shortest(Math.abs(d)).stripTrailingZeros();
        String digits = shortest.unscaledValue().toString();
        // value = 0.d1..dk * 10^n  <=>  unscaled * 10^-scale, so n = k - scale
        int n = digits.length() - shortest.scale();
        return (d < 0 ? "-" : "") + layout(digits, n);
    }

    /** The decimal with the fewest significant digits that reads back as {@code d} (positive, finite). */
    private static BigDecimal shortest(double d) {
        BigDecimal exact = new BigDecimal(d);
        for (int precision = 1; precision <= MAX_DIGITS; precision++) {
            BigDecimal down = exact.round(new MathContext(precision, RoundingMode.FLOOR));
            BigDecimal up = exact.round(new MathContext(precision, RoundingMode.CEILING));
            boolean downFits = down.doubleValue() == d;
            boolean upFits = up.doubleValue() == d;
            if (downFits && upFits) {
                return nearerOrEven(exact, down, up);
            }
            if (downFits) {
                return down;
            }
            if (upFits) {
                return up;
            }
        }
        throw new IllegalStateException("no " + MAX_DIGITS + "-digit decimal reads back as " + d);
    }

    private static BigDecimal nearerOrEven(BigDecimal exact, BigDecimal down, BigDecimal up) {
        int cmp = exact.subtract(down).compareTo(up.subtract(exact));
        if (cmp != 0) {
            return cmp < 0 ? down : up;
        }
        return down.unscaledValue().testBit(0) ? up : down;
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
