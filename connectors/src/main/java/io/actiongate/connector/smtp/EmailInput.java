package io.actiongate.connector.smtp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.actiongate.connector.internal.Json;

import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The only email shape the connector sends: {@code {"to","subject","body"}}, one bare address, plain text.
 * Anything else (lists, display names, CC/BCC/attachment fields, header line breaks) is refused, not repaired.
 */
record EmailInput(String to, String subject, String body) {

    static final int MAX_SUBJECT = 80;
    static final int MAX_BODY = 600;
    static final Set<String> FIELDS = Set.of("to", "subject", "body");
    /** A bare RFC 5321 mailbox with a dot-atom local part: no quotes, comments, brackets, commas or spaces. */
    static final Pattern ADDRESS = Pattern.compile(
            "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@"
                    + "[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+");

    /** The parsed input, or the first violated rule. */
    record Parsed(EmailInput input, String violation) {
    }

    String domain() {
        return to.substring(to.lastIndexOf('@') + 1).toLowerCase(Locale.ROOT);
    }

    static Parsed parse(String json, Set<String> allowedDomains) {
        return parse(json, null, allowedDomains);
    }

    /** {@link #parse(String, Set)}, reading {@code parsed} (the parse of {@code json}) when not null. */
    static Parsed parse(String json, JsonNode parsed, Set<String> allowedDomains) {
        Optional<ObjectNode> object = Json.object(json, parsed);
        if (object.isEmpty()) {
            return invalid("input is not a JSON object");
        }
        Optional<String> extra = Json.unexpectedField(object.get(), FIELDS);
        if (extra.isPresent()) {
            return invalid("only to, subject and body are accepted (no cc, bcc, attachments or other fields)");
        }
        String to = text(object.get(), "to");
        String subject = text(object.get(), "subject");
        String body = text(object.get(), "body");
        if (to == null || subject == null || body == null) {
            return invalid("to, subject and body must all be strings");
        }
        if (hasLineBreak(to) || hasLineBreak(subject)) {
            return invalid("line breaks are not allowed in to or subject");
        }
        if (to.length() > 254 || !ADDRESS.matcher(to).matches()) {
            return invalid("to must be exactly one bare email address");
        }
        if (subject.isBlank()) {
            return invalid("subject is empty");
        }
        if (hasControl(subject, false)) {
            return invalid("subject holds control characters");
        }
        if (codePoints(subject) > MAX_SUBJECT) {
            return invalid("subject longer than " + MAX_SUBJECT + " characters");
        }
        if (hasControl(body, true)) {
            return invalid("body holds control characters");
        }
        if (codePoints(body) > MAX_BODY) {
            return invalid("body longer than " + MAX_BODY + " characters");
        }
        EmailInput input = new EmailInput(to, subject, body);
        if (!allowedDomains.contains(input.domain())) {
            return invalid("recipient domain is not in allowed-domains");
        }
        return new Parsed(input, null);
    }

    private static Parsed invalid(String violation) {
        return new Parsed(null, violation);
    }

    private static String text(ObjectNode object, String field) {
        JsonNode node = object.get(field);
        return node != null && node.isTextual() ? node.asText() : null;
    }

    private static boolean hasLineBreak(String s) {
        return s.indexOf('\r') >= 0 || s.indexOf('\n') >= 0;
    }

    private static boolean hasControl(String s, boolean allowLineBreaksAndTabs) {
        return s.chars().anyMatch(c -> (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0))
                && !(allowLineBreaksAndTabs && (c == '\n' || c == '\r' || c == '\t')));
    }

    private static int codePoints(String s) {
        return s.codePointCount(0, s.length());
    }

    @Override
    public String toString() {
        return "EmailInput[domain=" + domain() + "]";
    }
}
