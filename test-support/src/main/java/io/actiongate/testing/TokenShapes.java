package io.actiongate.testing;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Fake credentials of the shapes the credential scanner knows, made at run time (the repository holds none), for
 * tests that feed them through every refusal path and then look for them in every answer, log line and topic.
 * Deterministic: the same call gives the same strings.
 */
public final class TokenShapes {

    private static final String ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

    private TokenShapes() {
    }

    /** Kind to token: GitHub, AWS, Slack, JWT, a PEM header and a password assignment. */
    public static Map<String, String> all() {
        Random r = new Random(4242);
        Map<String, String> tokens = new LinkedHashMap<>();
        tokens.put("github_token", "ghp_" + chars(r, ALNUM, 36));
        tokens.put("aws_access_key_id", "AKIA" + chars(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16));
        tokens.put("slack_token", "xoxb-" + chars(r, "0123456789", 12) + "-" + chars(r, "0123456789", 13) + "-"
                + chars(r, ALNUM, 24));
        tokens.put("jwt", b64url("{\"alg\":\"HS256\",\"typ\":\"JWT\"}") + "." + b64url("{\"sub\":\"" + chars(r, ALNUM, 12)
                + "\"}") + "." + chars(r, ALNUM + "-_", 43));
        tokens.put("pem_private_key", "-----BEGIN RSA PRIVATE KEY-----");
        tokens.put("secret_assignment", "password=" + chars(r, ALNUM, 24));
        return tokens;
    }

    /**
     * The parts of {@code token} that must never appear in an answer, a log line or a record: the token itself and
     * its distinctive middle (an excerpt that Jackson or a logger cut short still shows it).
     */
    public static List<String> fragments(String token) {
        if (token.startsWith("-----BEGIN")) {
            return List.of("PRIVATE KEY");
        }
        int cut = token.indexOf('=') >= 0 && token.startsWith("password") ? token.indexOf('=') + 1 : 4;
        String tail = token.substring(cut);
        return List.of(token, tail.substring(0, Math.min(10, tail.length())));
    }

    /** Whether {@code text} holds any fragment of any token of {@link #all()}. */
    public static boolean leaks(String text) {
        if (text == null) {
            return false;
        }
        for (String token : all().values()) {
            for (String fragment : fragments(token)) {
                if (text.contains(fragment)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static String chars(Random r, String alphabet, int n) {
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    private static String b64url(String text) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }
}
