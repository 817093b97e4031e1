package io.actiongate.approver.web;

import java.util.HashMap;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.approver.review.Identity;
import io.actiongate.approver.review.Refusal;

/** What every page shares: the layout model, the message page, and the audit log line of a refusal. */
final class PageKit {

    static final Logger AUDIT = LoggerFactory.getLogger("io.actiongate.approver.audit");

    final Pages pages = new Pages();

    // ---- helpers --------------------------------------------------------------------------------------------

    Map<String, Object> base(Session s, String title) {
        Map<String, Object> m = new HashMap<>();
        m.put("title", title);
        if (s != null) {
            m.put("who", whoModel(s));
            m.put("csrf", s.csrf());
        }
        return m;
    }

    private static Map<String, Object> whoModel(Session s) {
        Identity i = s.identity();
        Map<String, Object> who = new HashMap<>();
        who.put("display", i.display());
        who.put("subject", i.subject());
        who.put("org", i.org());
        who.put("csrf", s.csrf());
        return who;
    }

    static Map<String, Object> link(String href, String label) {
        return Map.of("href", href, "label", label);
    }

    String message(Session s, String title, String problem, String text, Map<String, Object> link) {
        Map<String, Object> m = base(s, title);
        m.put("problem", problem);
        m.put("text", text);
        m.put("link", link);
        return pages.render("message", m);
    }

    static void audit(Refusal r, Exchange ex, Session s, String key, String digest) {
        AUDIT.info("refused reason={} reason_code={} action={} action_digest={} subject={} org={} path={} remote={}",
                r.name(), r.reasonCode() == null ? "-" : r.reasonCode().name(), input(key), safe(digest),
                s == null ? "-" : safe(s.identity().subject()), s == null ? "-" : safe(s.identity().org()),
                input(ex.path()), ex.remote());
    }

    /**
     * Log-safe request input (a path, a key taken from a path, a query or form value): %xx escapes decoded, then a
     * well-known credential shape masked by the one redaction library (a request may carry a token where an id
     * belongs), then {@link #safe}.
     */
    static String input(String v) {
        if (v == null) {
            return "-";
        }
        return safe(io.actiongate.secrets.Redaction.redact(decoded(v), 4096));
    }

    /** {@code v} with its %xx escapes decoded, so that an escaped credential is masked too. */
    private static String decoded(String v) {
        if (v.indexOf('%') < 0) {
            return v;
        }
        try {
            return java.net.URLDecoder.decode(v.replace("+", "%2B"), java.nio.charset.StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return v.replace('%', '?'); // a malformed escape: nothing decoded, and no escape left to hide behind
        }
    }

    /**
     * Log-safe: printable, bounded, no line breaks. For values this service vouches for (a verified subject, a
     * digest it computed); request input goes through {@link #input}.
     */
    static String safe(String v) {
        if (v == null) {
            return "-";
        }
        String s = v.replaceAll("[^\\x21-\\x7E]", "?");
        return s.length() > 160 ? s.substring(0, 160) + "..." : s;
    }
}
