package io.actiongate.approver.book;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.AttemptOutcome;
import io.actiongate.avro.IdentityConflict;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.avro.Reconciliation;
import io.actiongate.avro.ResolvedBy;
import io.actiongate.digest.Digests;
import io.actiongate.digest.FrozenAction;

/**
 * What the approval service knows about each action, by action key: the proposals published under the key, the
 * latest receipt, every attempt's outcome and the reconciler's latest verdict per attempt. Filled by
 * {@link BookFeed} from the compacted topics (read_committed), so every instance of the service holds the same view
 * and needs no state of its own.
 *
 * <p>The action shown is always the one the gate froze: the proposal whose re-derived {@code action_digest} is the
 * one on the gate's receipt, never simply the latest record on {@code proposals}. Whether a conflicting proposal was
 * refused is the gate's word, not a guess from {@code proposals}: an {@code IdentityConflict} on the gate's
 * {@code conflicts} topic whose {@code existing_digest} is the receipt's {@code action_digest} (the gate kept the
 * original and still waits on it, so it can still be decided). A second proposal seen under the key is only a
 * candidate until the receipt names the frozen one; it may not even have reached the gate yet. Until the receipt
 * arrives at most {@link #MAX_CANDIDATES} distinct proposals are kept per key; once it arrives only the frozen one
 * is. When the frozen proposal is not known at all (say, compaction kept only the conflicting record), nothing is
 * shown and nothing can be decided.
 *
 * <p>Memory: once an action is settled (a terminal receipt) its proposal bodies are dropped; the small receipt stays
 * so that a late review says what happened. An action that settled without ever waiting for a person
 * ({@link #settledUnattended}: an auto-approved read, a refusal at admission) has no review to come back to, so of it
 * only the key and a fingerprint of its input digest stay, enough to know its own proposal when it is read again:
 * about a tenth of what a settled entry holds (docs/approving.md).
 */
public final class ActionBook {

    /** Distinct proposals kept per key before the gate's receipt says which one it froze. */
    public static final int MAX_CANDIDATES = 4;
    /** Distinct held digests of the gate's conflicts kept per key (a conflict may be read before its receipt). */
    public static final int MAX_CONFLICTS = 4;

    /** A proposal with its re-derived action digest (null when it cannot be derived). */
    public record Candidate(ActionProposal proposal, String actionDigest) {
        static Candidate of(ActionProposal p) {
            String digest;
            try {
                digest = Digests.actionDigest(FrozenAction.of(p));
            } catch (IllegalArgumentException e) {
                digest = null;
            }
            return new Candidate(p, digest);
        }
    }

    /**
     * One action as known now. Immutable snapshot. {@code othersSeen}: proposals other than the kept candidates were
     * seen under the key (dropped over the cap, or once the receipt named another); {@code conflictedDigests}: the
     * {@code existing_digest} of each conflict the gate published under the key.
     */
    public record Entry(String key, List<Candidate> candidates, Receipt receipt, Map<Integer, AttemptOutcome> outcomes,
                        Map<Integer, Reconciliation> reconciliations, boolean othersSeen,
                        Set<String> conflictedDigests) {
        public Entry {
            candidates = List.copyOf(candidates);
            outcomes = Map.copyOf(outcomes);
            reconciliations = Map.copyOf(reconciliations);
            conflictedDigests = Set.copyOf(conflictedDigests);
        }

        /**
         * The proposal the gate froze: the one whose action digest is the receipt's. Without a receipt, the first one
         * seen (only its org is used then); null when none is known or none matches the receipt.
         */
        public ActionProposal proposal() {
            if (receipt == null) {
                return candidates.isEmpty() ? null : candidates.get(0).proposal();
            }
            return frozen(candidates, receipt).map(Candidate::proposal).orElse(null);
        }

        /**
         * Whether the gate refused a proposal conflicting with the action it holds: it published an identity conflict
         * under this key against the receipt's action digest.
         */
        public boolean conflictRefused() {
            return receipt != null && receipt.getActionDigest() != null
                    && conflictedDigests.contains(receipt.getActionDigest());
        }

        /** A receipt and proposals under the key, but none of them the frozen one. */
        public boolean frozenProposalUnknown() {
            return receipt != null && (!candidates.isEmpty() || othersSeen) && proposal() == null;
        }

        Entry with(List<Candidate> c, Receipt r, boolean others) {
            return new Entry(key, c, r, outcomes, reconciliations, others, conflictedDigests);
        }

        Entry withoutConflicts() {
            return new Entry(key, candidates, receipt, outcomes, reconciliations, othersSeen, Set.of());
        }
    }

    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
    /** Actions settled without waiting for a person: key to {@link #fingerprint} of the settled input digest. */
    private final ConcurrentHashMap<String, Long> unattended = new ConcurrentHashMap<>();

    private static Optional<Candidate> frozen(List<Candidate> candidates, Receipt r) {
        return candidates.stream().filter(c -> c.actionDigest() != null
                && c.actionDigest().equals(r.getActionDigest())).findFirst();
    }

    public void proposal(String key, ActionProposal p) {
        Long settled = unattended.get(key);
        if (settled != null) {
            if (settled == fingerprint(p.getInputDigest())) {
                return; // the settled action's own proposal, redelivered or read after its receipt
            }
            unattended.remove(key); // a new action under the key (after the gate's dedupe window)
        }
        Candidate offered = Candidate.of(p);
        entries.compute(key, (k, e) -> {
            Entry base = e == null ? empty(k) : e;
            Receipt r = base.receipt();
            if (r != null && isSettled(r.getStatus())) {
                // the settled action's own proposal (redelivered, or read after its receipt) is not kept; another
                // one may start a new action under the key (after the gate's dedupe window) and is kept afresh
                if (p.getInputDigest().equals(r.getInputDigest())) {
                    return base;
                }
                return base.with(List.of(offered), r, false).withoutConflicts();
            }
            if (base.candidates().stream().anyMatch(c -> same(c, offered))) {
                return base; // redelivered
            }
            if (r != null) {
                // the gate has frozen one already: only that one is kept, any other is a refused conflict
                boolean matches = offered.actionDigest() != null && offered.actionDigest().equals(r.getActionDigest());
                boolean haveFrozen = frozen(base.candidates(), r).isPresent();
                if (matches && !haveFrozen) {
                    return base.with(List.of(offered), r, base.othersSeen() || !base.candidates().isEmpty());
                }
                return base.with(base.candidates(), r, true);
            }
            if (base.candidates().size() >= MAX_CANDIDATES) {
                return base.with(base.candidates(), null, true);
            }
            List<Candidate> c = new ArrayList<>(base.candidates());
            c.add(offered);
            return base.with(c, null, base.othersSeen());
        });
    }

    private static boolean same(Candidate a, Candidate b) {
        return a.actionDigest() != null && a.actionDigest().equals(b.actionDigest())
                && a.proposal().getInputDigest().equals(b.proposal().getInputDigest());
    }

    public void receipt(String key, Receipt r) {
        if (settledUnattended(r)) {
            unattended.put(key, fingerprint(r.getInputDigest()));
            entries.remove(key);
            return;
        }
        unattended.remove(key); // a receipt that is not this one's settlement is a new action under the key
        entries.compute(key, (k, e) -> {
            Entry base = e == null ? empty(k) : e;
            if (isSettled(r.getStatus())) {
                return base.with(List.of(), r, false).withoutConflicts();
            }
            Optional<Candidate> f = frozen(base.candidates(), r);
            if (f.isEmpty()) {
                // not (yet) known which one it froze: keep what there is, the review refuses meanwhile
                return base.with(base.candidates(), r, base.othersSeen());
            }
            boolean others = base.candidates().size() > 1;
            return base.with(List.of(f.get()), r, base.othersSeen() || others);
        });
    }

    public void outcome(String key, AttemptOutcome o) {
        if (unattended.containsKey(key)) {
            return;
        }
        entries.compute(key, (k, e) -> {
            Entry base = e == null ? empty(k) : e;
            Map<Integer, AttemptOutcome> m = new TreeMap<>(base.outcomes());
            m.put(o.getAttempt(), o);
            return new Entry(k, base.candidates(), base.receipt(), m, base.reconciliations(), base.othersSeen(),
                    base.conflictedDigests());
        });
    }

    public void reconciliation(String key, Reconciliation r) {
        if (unattended.containsKey(key)) {
            return;
        }
        entries.compute(key, (k, e) -> {
            Entry base = e == null ? empty(k) : e;
            Map<Integer, Reconciliation> m = new TreeMap<>(base.reconciliations());
            m.put(r.getAttempt(), r);
            return new Entry(k, base.candidates(), base.receipt(), base.outcomes(), m, base.othersSeen(),
                    base.conflictedDigests());
        });
    }

    /**
     * The gate refused a proposal under this key: an identity conflict from its {@code conflicts} topic. Kept only
     * while the action is not settled, at most {@link #MAX_CONFLICTS} held digests per key.
     */
    public void conflict(String key, IdentityConflict c) {
        String held = c.getExistingDigest();
        if (held == null || held.isBlank() || unattended.containsKey(key)) {
            return;
        }
        entries.compute(key, (k, e) -> {
            Entry base = e == null ? empty(k) : e;
            Receipt r = base.receipt();
            if ((r != null && isSettled(r.getStatus())) || base.conflictedDigests().contains(held)
                    || base.conflictedDigests().size() >= MAX_CONFLICTS) {
                return base;
            }
            Set<String> digests = new HashSet<>(base.conflictedDigests());
            digests.add(held);
            return new Entry(k, base.candidates(), r, base.outcomes(), base.reconciliations(), base.othersSeen(),
                    digests);
        });
    }

    /** A tombstone on a compacted topic forgets what that topic said. */
    public void forgetProposal(String key) {
        entries.computeIfPresent(key, (k, e) -> e.with(List.of(), e.receipt(), e.othersSeen()));
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
            ActionProposal p = e.proposal();
            String actionOrg = r.getOrgId() != null ? r.getOrgId() : p != null ? p.getOrgId() : null;
            if (org.equals(actionOrg)) {
                out.add(e);
            }
        }
        out.sort(Comparator.comparing((Entry e) -> e.receipt().getUpdatedAt()).thenComparing(Entry::key));
        return out;
    }

    /** The actions known: those held whole and those settled without waiting for a person. */
    public int size() {
        return entries.size() + unattended.size();
    }

    private static Entry empty(String key) {
        return new Entry(key, List.of(), null, Map.of(), Map.of(), false, Set.of());
    }

    /**
     * Settled without ever having waited for a person, judged from the receipt alone so that every instance judges
     * alike whatever compaction kept: no human decision, no resolution (an action in {@code UNKNOWN} is on the
     * owners' queue), and not {@code EXPIRED} or {@code CANCELLED}, which is how an action waiting for approval may
     * end without one. Nobody was sent to review it, and a review of it would only say it is not waiting.
     */
    static boolean settledUnattended(Receipt r) {
        ReceiptStatus s = r.getStatus();
        return isSettled(s) && s != ReceiptStatus.EXPIRED && s != ReceiptStatus.CANCELLED && r.getDecisionId() == null
                && (r.getResolvedBy() == null || r.getResolvedBy() == ResolvedBy.GATE);
    }

    /**
     * 64 bits of an input digest: its first 16 hex digits ({@code sha256:} and 64 hex, as the contract writes it),
     * or its string hash for any other form. A new action under a settled key is told from the old one's
     * redelivered proposal by its input, so two inputs would have to share these bits to be mistaken.
     */
    static long fingerprint(String inputDigest) {
        if (inputDigest == null) {
            return 0;
        }
        if (inputDigest.length() == 71 && inputDigest.startsWith("sha256:")) {
            try {
                return Long.parseUnsignedLong(inputDigest, 7, 23, 16);
            } catch (NumberFormatException e) {
                // not hex: the hash below
            }
        }
        return inputDigest.hashCode();
    }

    static boolean isSettled(ReceiptStatus s) {
        return switch (s) {
            case SUCCEEDED, FAILED, REJECTED, DENIED, EXPIRED, CANCELLED, NOT_APPLIED -> true;
            default -> false;
        };
    }
}
