package io.actiongate.storage;

import java.util.Locale;

/** Content types compared as media types: lowercase, parameters kept, spaces around ';' dropped. */
public final class ContentTypes {

    private ContentTypes() {
    }

    public static String normalize(String contentType) {
        if (contentType == null) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        for (String part : contentType.split(";")) {
            String p = part.strip().toLowerCase(Locale.ROOT);
            if (p.isEmpty()) {
                continue;
            }
            if (out.length() > 0) {
                out.append(';');
            }
            out.append(p);
        }
        return out.toString();
    }

    /** The media type without parameters, e.g. {@code text/plain} for {@code text/plain; charset=utf-8}. */
    public static String mediaType(String contentType) {
        String normalized = normalize(contentType);
        int semicolon = normalized.indexOf(';');
        return semicolon < 0 ? normalized : normalized.substring(0, semicolon);
    }
}
