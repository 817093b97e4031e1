package io.actiongate.approver.review;

import java.util.List;

/**
 * Who may decide, with the semantics of the gate's {@code gate.approvers}: the approver's org must equal the
 * action's {@code org_id}; when entries are configured, {@code org_id:subject} (subject {@code *} for anyone of the
 * org) must also match. The approval service checks this before it shows an approve button; the gate checks it again
 * on the signed decision.
 */
public final class ApproverPolicy {

    private record Entry(String org, String subject) {
    }

    private final List<Entry> entries;

    public ApproverPolicy(List<String> raw) {
        this.entries = raw.stream().map(String::strip).filter(s -> !s.isEmpty()).map(s -> {
            int colon = s.indexOf(':');
            if (colon <= 0 || colon == s.length() - 1) {
                throw new IllegalArgumentException("an approver entry is org_id:subject (subject may be *)");
            }
            return new Entry(s.substring(0, colon), s.substring(colon + 1));
        }).toList();
    }

    /** Whether the org is right at all (the first check, reported apart from the allow-list). */
    public static boolean sameOrg(String approverOrg, String actionOrg) {
        return approverOrg != null && approverOrg.equals(actionOrg);
    }

    public boolean mayDecide(String approverOrg, String subject, String actionOrg) {
        if (!sameOrg(approverOrg, actionOrg)) {
            return false;
        }
        return entries.isEmpty() || entries.stream().anyMatch(e -> e.org().equals(approverOrg)
                && ("*".equals(e.subject()) || e.subject().equals(subject)));
    }
}
