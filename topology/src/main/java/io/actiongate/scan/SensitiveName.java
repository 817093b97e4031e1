package io.actiongate.scan;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Whether a key / member name says "this holds a credential": {@code password}, {@code passwd}, {@code passphrase},
 * {@code secret}, {@code api_key} / {@code apikey}, {@code private_key}, {@code client_secret}, {@code credentials},
 * {@code authorization}, {@code cookie},
 * a name ending in {@code token} ({@code access_token}, {@code authToken}, {@code X-Auth-Token}), or ending in
 * {@code key} right after {@code api} / {@code private} / {@code secret} / {@code access} / {@code signing} /
 * {@code encryption} / {@code master}.
 *
 * <p>Names are split into lower-case words at separators ({@code _ - . space}) and camelCase boundaries. Pagination
 * cursors ({@code pageToken}, {@code next_page_token}, {@code continuationToken}, {@code syncToken},
 * {@code cursor_token}) are not credentials and are excluded.
 */
final class SensitiveName {

    private static final List<String> SECRET_WORD_SUFFIXES =
            List.of("password", "passwords", "passwd", "passphrase", "secret", "secrets", "apikey", "privatekey",
                    "credential", "credentials", "authorization", "cookie");
    private static final Set<String> KEY_QUALIFIERS =
            Set.of("api", "private", "secret", "access", "signing", "encryption", "master");
    private static final List<String> CURSOR_WORDS =
            List.of("page", "next", "continuation", "sync", "cursor", "resume");

    private SensitiveName() {
    }

    static boolean isSensitive(String name) {
        List<String> words = words(name);
        if (words.isEmpty()) {
            return false;
        }
        for (String w : words) {
            for (String suffix : SECRET_WORD_SUFFIXES) {
                if (w.endsWith(suffix)) {
                    return true;
                }
            }
        }
        String last = words.get(words.size() - 1);
        if (last.endsWith("token")) {
            return !isCursor(words, last);
        }
        if (last.equals("key") && words.size() >= 2) {
            return KEY_QUALIFIERS.contains(words.get(words.size() - 2));
        }
        return false;
    }

    private static boolean isCursor(List<String> words, String last) {
        String before = last.equals("token") && words.size() >= 2 ? words.get(words.size() - 2) : last;
        for (String c : CURSOR_WORDS) {
            if (before.equals(c) || before.endsWith(c + "token") || before.endsWith(c)) {
                return true;
            }
        }
        return false;
    }

    /** Lower-case words split at non-alphanumerics and camelCase boundaries ({@code "XApiKey"} -> x, api, key). */
    static List<String> words(String name) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        int n = name.length();
        for (int i = 0; i < n; i++) {
            char c = name.charAt(i);
            if (!Character.isLetterOrDigit(c)) {
                flush(cur, out);
                continue;
            }
            if (cur.length() > 0 && Character.isUpperCase(c)) {
                char prev = name.charAt(i - 1);
                boolean nextLower = i + 1 < n && Character.isLowerCase(name.charAt(i + 1));
                if (!Character.isUpperCase(prev) || nextLower) {
                    flush(cur, out);
                }
            }
            cur.append(c);
        }
        flush(cur, out);
        return out;
    }

    private static void flush(StringBuilder cur, List<String> out) {
        if (cur.length() > 0) {
            out.add(cur.toString().toLowerCase(Locale.ROOT));
            cur.setLength(0);
        }
    }
}
