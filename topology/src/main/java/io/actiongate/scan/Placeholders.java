package io.actiongate.scan;

/**
 * Values that obviously stand for a secret instead of being one: {@code ${DB_PASSWORD}}, {@code {{ token }}},
 * {@code <your-api-key>}, {@code %(password)s}, {@code ********}, {@code xxxxxxxx}. Only assignment-style and
 * URL-password detectors consult this; prefixed token formats never do.
 */
final class Placeholders {

    private Placeholders() {
    }

    static boolean isPlaceholder(String value) {
        String v = value.strip();
        if (v.isEmpty()) {
            return true;
        }
        if ((v.startsWith("${") || v.startsWith("$(")) && (v.endsWith("}") || v.endsWith(")"))
                && v.indexOf('$', 1) < 0) {
            return true;
        }
        if (v.startsWith("{{") && v.endsWith("}}")) {
            return true;
        }
        if (v.startsWith("<") && v.endsWith(">") && v.indexOf('>') == v.length() - 1) {
            return true;
        }
        if (v.startsWith("%(") && v.endsWith(")s")) {
            return true;
        }
        return isMask(v);
    }

    private static boolean isMask(String v) {
        char first = v.charAt(0);
        if (first != '*' && first != 'x' && first != 'X' && first != '\u2022' && first != '.') {
            return false;
        }
        for (int i = 1; i < v.length(); i++) {
            if (v.charAt(i) != first) {
                return false;
            }
        }
        return true;
    }
}
