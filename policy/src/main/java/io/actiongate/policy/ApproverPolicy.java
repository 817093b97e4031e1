package io.actiongate.policy;

import java.util.List;
import java.util.Objects;

/**
 * Who may decide on an action ({@code gate.approvers}, and the approval service's own copy of that list). The
 * approver's org always has to equal the action's {@code org_id}. When entries are configured, the approver must also
 * match one of them: {@code org_id:subject}, where the subject may be {@code *} (anyone of that org). With no entries,
 * any subject of the action's org may decide. The approval service asks this before it shows an approve button; the
 * gate asks it again on the signed decision.
 */
public final class ApproverPolicy {

    private record Entry(String org, String subject) {
    }

    private final List<Entry> entries;

    private ApproverPolicy(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    /** Parses {@code org:subject} entries; throws {@link IllegalArgumentException} on a malformed entry. */
    public static ApproverPolicy parse(List<String> raw) {
        List<Entry> entries = (raw == null ? List.<String>of() : raw).stream()
                .map(String::strip)
                .filter(s -> !s.isEmpty())
                .map(s -> {
                    int colon = s.indexOf(':');
                    if (colon <= 0 || colon == s.length() - 1) {
                        throw new IllegalArgumentException("an approver entry is org_id:subject (subject may be *)");
                    }
                    return new Entry(s.substring(0, colon), s.substring(colon + 1));
                })
                .toList();
        return new ApproverPolicy(entries);
    }

    /** Whether the org is right at all (the first check, reported apart from the allow-list). */
    public static boolean sameOrg(String approverOrg, String actionOrg) {
        return approverOrg != null && approverOrg.equals(actionOrg);
    }

    /** Whether {@code subject} of {@code approverOrg} may decide on an action of {@code actionOrg}. */
    public boolean mayDecide(String approverOrg, String subject, String actionOrg) {
        if (!sameOrg(approverOrg, actionOrg)) {
            return false;
        }
        return entries.isEmpty() || entries.stream().anyMatch(e -> e.org().equals(approverOrg)
                && ("*".equals(e.subject()) || Objects.equals(e.subject(), subject)));
    }
}
