package io.actiongate.approver.book;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.AttemptOutcome;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.avro.Reconciliation;

/**
 * What the approval service knows about each action, by action key: the latest proposal published under the key,
 * the latest receipt, every attempt's outcome and the reconciler's latest verdict per attempt. Filled by
 * {@link BookFeed} from the compacted topics (read_committed), so every instance of the service holds the same view
 * and needs no state of its own. The proposal is kept as the latest one on {@code proposals}: if a different
 * proposal is published under a key after the gate froze the first, the re-derived digest no longer matches the
 * receipt and the review refuses (fail closed), which is what a reviewer must see.
 *
 * <p>Memory: once an action is settled (a terminal receipt) its proposal body is dropped; the small receipt stays
 * so that a late review says what happened.
 */
public final class ActionBook {

    /** One action as known now. Immutable snapshot. */
    public record Entry(String key, ActionProposal proposal, Receipt receipt, Map<Integer, AttemptOutcome> outcomes,
                        Map<Integer, Reconciliation> reconciliations, boolean proposalReplaced) {
        public Entry {
            outcomes = Map.copyOf(outcomes);
            reconciliations = Map.copyOf(reconciliations);
        }
    }

    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();

    public void proposal(String key, ActionProposal p) {
        entries.compute(key, (k, e) -> {
            Entry base = e == null ? empty(k) : e;
            if (base.receipt() != null && isSettled(base.receipt().getStatus())) {
                // the settled action's own proposal (redelivered, or read after its receipt) is not kept; another
                // one may start a new action under the key (after the gate's dedupe window) and is kept afresh
                if (p.getInputDigest().equals(base.receipt().getInputDigest())) {
                    return base;
                }
                return new Entry(k, p, base.receipt(), base.outcomes(), base.reconciliations(), false);
            }
            boolean replaced = base.proposalReplaced()
                    || (base.proposal() != null && !base.proposal().getInputDigest().equals(p.getInputDigest()))
                    || (base.proposal() != null && !sameFrozenFields(base.proposal(), p));
            return new Entry(k, p, base.receipt(), base.outcomes(), base.reconciliations(), replaced);
        });
    }

    public void receipt(String key, Receipt r) {
        entries.compute(key, (k, e) -> {
            Entry base = e == null ? empty(k) : e;
            boolean settled = isSettled(r.getStatus());
            ActionProposal p = settled ? null : base.proposal();
            return new Entry(k, p, r, base.outcomes(), base.reconciliations(), !settled && base.proposalReplaced());
        });
    }

    public void outcome(String key, AttemptOutcome o) {
        entries.compute(key, (k, e) -> {
            Entry base = e == null ? empty(k) : e;
            Map<Integer, AttemptOutcome> m = new TreeMap<>(base.outcomes());
            m.put(o.getAttempt(), o);
            return new Entry(k, base.proposal(), base.receipt(), m, base.reconciliations(), base.proposalReplaced());
        });
    }

    public void reconciliation(String key, Reconciliation r) {
        entries.compute(key, (k, e) -> {
            Entry base = e == null ? empty(k) : e;
            Map<Integer, Reconciliation> m = new TreeMap<>(base.reconciliations());
            m.put(r.getAttempt(), r);
            return new Entry(k, base.proposal(), base.receipt(), base.outcomes(), m, base.proposalReplaced());
        });
    }

    /** A tombstone on a compacted topic forgets what that topic said. */
    public void forgetProposal(String key) {
        entries.computeIfPresent(key, (k, e) -> new Entry(k, null, e.receipt(), e.outcomes(), e.reconciliations(),
                e.proposalReplaced()));
    }

    public Optional<Entry> get(String key) {
        return Optional.ofNullable(entries.get(key));
    }

    /** The actions of {@code org} whose latest receipt has {@code status}, oldest receipt first. */
    public List<Entry> byStatus(String org, ReceiptStatus status) {
        List<Entry> out = new ArrayList<>();
        for (Entry e : entries.values()) {
            Receipt r = e.receipt();
            if (r == null || r.getStatus() != status) {
                continue;
            }
            String actionOrg = r.getOrgId() != null ? r.getOrgId()
                    : e.proposal() != null ? e.proposal().getOrgId() : null;
            if (org.equals(actionOrg)) {
                out.add(e);
            }
        }
        out.sort(Comparator.comparing((Entry e) -> e.receipt().getUpdatedAt()).thenComparing(Entry::key));
        return out;
    }

    public int size() {
        return entries.size();
    }

    private static Entry empty(String key) {
        return new Entry(key, null, null, Map.of(), Map.of(), false);
    }

    static boolean isSettled(ReceiptStatus s) {
        return switch (s) {
            case SUCCEEDED, FAILED, REJECTED, DENIED, EXPIRED, CANCELLED, NOT_APPLIED -> true;
            default -> false;
        };
    }

    private static boolean sameFrozenFields(ActionProposal a, ActionProposal b) {
        return a.getTaskVersion() == b.getTaskVersion() && a.getAuthorizationEpoch() == b.getAuthorizationEpoch()
                && a.getOrgId().equals(b.getOrgId()) && a.getPrincipalId().equals(b.getPrincipalId())
                && a.getProvider().equals(b.getProvider()) && a.getOperation().equals(b.getOperation())
                && a.getToolName().equals(b.getToolName()) && a.getSummary().equals(b.getSummary())
                && a.getAttachments().equals(b.getAttachments());
    }
}
