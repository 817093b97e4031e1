package io.actiongate.scan;

import java.util.HashMap;
import java.util.Map;

/**
 * Shannon entropy of a string over its UTF-16 chars, and the high-entropy rule that assignment-style detectors use
 * to tell a secret from prose: at least {@value #MIN_LENGTH} chars, no whitespace, and at least
 * {@value #MIN_BITS_PER_CHAR} bits per char.
 */
final class Entropy {

    static final int MIN_LENGTH = 12;
    static final double MIN_BITS_PER_CHAR = 3.5;

    private Entropy() {
    }

    /** Bits per char; 0 for an empty string. Linear time. */
    static double bitsPerChar(CharSequence s) {
        int n = s.length();
        if (n == 0) {
            return 0.0;
        }
        int[] ascii = new int[128];
        Map<Character, Integer> other = null;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 128) {
                ascii[c]++;
            } else {
                if (other == null) {
                    other = new HashMap<>();
                }
                other.merge(c, 1, Integer::sum);
            }
        }
        double bits = 0.0;
        for (int count : ascii) {
            bits += term(count, n);
        }
        if (other != null) {
            for (int count : other.values()) {
                bits += term(count, n);
            }
        }
        return bits;
    }

    private static double term(int count, int n) {
        if (count == 0) {
            return 0.0;
        }
        double p = (double) count / n;
        return -p * (Math.log(p) / Math.log(2));
    }

    /** The documented high-entropy rule: long enough, one word (no whitespace), and random-looking. */
    static boolean isHighEntropySecret(String value) {
        if (value.length() < MIN_LENGTH) {
            return false;
        }
        for (int i = 0; i < value.length(); i++) {
            if (Character.isWhitespace(value.charAt(i))) {
                return false;
            }
        }
        return bitsPerChar(value) >= MIN_BITS_PER_CHAR;
    }

    static boolean hasLetterAndDigit(CharSequence s) {
        boolean letter = false;
        boolean digit = false;
        for (int i = 0; i < s.length() && !(letter && digit); i++) {
            char c = s.charAt(i);
            letter |= (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
            digit |= c >= '0' && c <= '9';
        }
        return letter && digit;
    }

    static boolean hasUpperLowerAndDigit(CharSequence s) {
        boolean upper = false;
        boolean lower = false;
        boolean digit = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            upper |= c >= 'A' && c <= 'Z';
            lower |= c >= 'a' && c <= 'z';
            digit |= c >= '0' && c <= '9';
        }
        return upper && lower && digit;
    }
}
