package io.actiongate.approver.review;

/**
 * Makes characters that a person cannot see, or that reorder what they see, visible as {@code [U+XXXX]}: controls
 * other than line feed, carriage return and tab, bidirectional overrides and isolates, zero-width characters and other
 * format characters. A reviewer must not approve text whose displayed form hides part of what is sent.
 */
public final class Visible {

    private Visible() {
    }

    public static boolean isHidden(int cp) {
        if (cp == '\n' || cp == '\r' || cp == '\t') {
            return false;
        }
        int type = Character.getType(cp);
        return type == Character.CONTROL || type == Character.FORMAT || type == Character.UNASSIGNED
                || type == Character.PRIVATE_USE || type == Character.SURROGATE
                || cp == 0x2028 || cp == 0x2029 || (cp >= 0xFE00 && cp <= 0xFE0F);
    }

    public static boolean hasHidden(String s) {
        return s != null && s.codePoints().anyMatch(Visible::isHidden);
    }

    public static String reveal(String s) {
        if (s == null) {
            return null;
        }
        StringBuilder b = new StringBuilder(s.length());
        s.codePoints().forEach(cp -> {
            if (isHidden(cp)) {
                b.append(String.format("[U+%04X]", cp));
            } else {
                b.appendCodePoint(cp);
            }
        });
        return b.toString();
    }
}
