package io.actiongate.scan;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Random;

/**
 * Builds fake credentials at run time, so that the repository holds no string that a secret scanner (or a reader)
 * could take for a real credential. Deterministic: the same call always gives the same string.
 */
final class Fake {

    static final String UPPER_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static final String ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    static final String BASE64 = ALNUM + "+/";
    static final String BASE64URL = ALNUM + "-_";
    static final String HEX = "0123456789abcdef";
    static final String DIGITS = "0123456789";
    static final String DASHES = "-----";

    private Fake() {
    }

    static String chars(String alphabet, int n) {
        Random random = new Random(31L * n + alphabet.hashCode());
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    static String alnum(int n) {
        return chars(ALNUM, n);
    }

    static String b64url(String text) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    static String b64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    static String jwt(String headerJson) {
        return b64url(headerJson) + "." + b64url("{\"sub\":\"1234567890\",\"name\":\"Jo\",\"iat\":1516239022}")
                + "." + chars(BASE64URL, 43);
    }

    static String githubToken() {
        return "ghp_" + alnum(36);
    }
}
