package io.actiongate.notifier;

import java.util.regex.Pattern;

import io.actiongate.contract.ContractLimits;
import io.actiongate.scan.CredentialScanner;
import io.actiongate.secrets.Redaction;

/**
 * The proposal's summary made fit to leave actiongate in a notice: scanned with the gate's credential scanner (a
 * finding withholds it whole), redacted as every receipt's text is ({@link Redaction#redact}: credentials after an
 * auth scheme, secret assignments, URLs with a query, local paths, long opaque tokens, control characters), characters
 * that hide or reorder text shown as {@code [U+XXXX]}, and every {@code scheme://} written {@code scheme[:]//}: the
 * agent wrote the summary, so nothing in it may become a link a reviewer follows instead of the review URL.
 */
final class SummaryText {

    static final String WITHHELD = "[summary withheld: it looks like credential material]";
    static final String NONE = "(no summary)";

    private static final Pattern SCHEME = Pattern.compile("(?i)\\b([a-z][a-z0-9+.-]{0,31}):(?=//)");

    private final CredentialScanner scanner = CredentialScanner.defaults();

    String clean(String summary) {
        if (summary == null || summary.isBlank()) {
            return NONE;
        }
        if (scanner.scan(summary).isPresent()) {
            return WITHHELD;
        }
        String redacted = Redaction.redact(summary, ContractLimits.SUMMARY_MAX_CHARS);
        return SCHEME.matcher(shown(redacted)).replaceAll("$1[:]");
    }

    /**
     * A field of the action (org, profile, tool, provider, operation) as a notice shows it: control characters as a
     * space, hidden ones as {@code [U+XXXX]}; null as empty.
     */
    static String plain(String s) {
        return s == null ? "" : shown(CONTROL.matcher(s).replaceAll(" "));
    }

    private static final Pattern CONTROL = Pattern.compile("\\p{Cntrl}");

    /** Format, separator and private-use characters (bidi overrides, zero-width) as {@code [U+XXXX]}. */
    private static String shown(String s) {
        StringBuilder out = new StringBuilder(s.length());
        s.codePoints().forEach(cp -> {
            int type = Character.getType(cp);
            boolean hidden = type == Character.FORMAT || type == Character.LINE_SEPARATOR
                    || type == Character.PARAGRAPH_SEPARATOR || type == Character.PRIVATE_USE
                    || type == Character.UNASSIGNED || type == Character.SURROGATE || (cp >= 0xFE00 && cp <= 0xFE0F);
            if (hidden) {
                out.append(String.format("[U+%04X]", cp));
            } else {
                out.appendCodePoint(cp);
            }
        });
        return out.toString();
    }
}
