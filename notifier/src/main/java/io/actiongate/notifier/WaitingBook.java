package io.actiongate.notifier;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.actiongate.avro.ActionProposal;
import io.actiongate.avro.Receipt;
import io.actiongate.avro.ReceiptStatus;
import io.actiongate.digest.Digests;
import io.actiongate.digest.FrozenAction;
import io.actiongate.key.ActionKey;

/**
 * The actions that wait for a human, as the receipts and proposals topics tell: for each action key its latest
 * receipt's status, and, while it waits, the part of the proposal the gate froze that a notice may show. The frozen
 * proposal is the one whose re-derived action digest is the receipt's (never simply the latest record on
 * {@code proposals}); its input is used for that digest and dropped. Before the receipt names one, at most
 * {@link #MAX_CANDIDATES} proposals are kept per key.
 *
 * <p>Memory: a waiting action holds its org, profile, tool and summary; any other action only its key (a shared
 * marker, so that its proposal read after its receipt is not kept). A check walks the waiting actions only.
 */
final class WaitingBook {

    static final int MAX_CANDIDATES = 4;

    /** What a notice may take from a proposal: never the input, attachments or the principal. */
    record Proposed(String orgId, String profileId, String provider, String operation, String toolName,
                    String summary, String actionDigest) {
    }

    /** An action waiting for approval since {@code since} (its WAITING_APPROVAL receipt's {@code updated_at}). */
    record Waiting(ActionKey key, Proposed proposal, Instant since) {
    }

    private record Entry(ReceiptStatus status, String actionDigest, String orgId, Instant updatedAt,
                         List<Proposed> candidates) {
    }

    /** Every action whose receipt no longer (or never) waits: its proposals are not kept. */
    private static final Entry NOT_WAITING = new Entry(ReceiptStatus.DISPATCHING, null, null, null, List.of());

    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    /** The keys of {@link #entries} whose receipt is WAITING_APPROVAL. */
    private final Set<String> waitingKeys = ConcurrentHashMap.newKeySet();

    void proposal(String key, ActionProposal p) {
        Proposed offered = proposed(p);
        if (offered == null) {
            return;
        }
        entries.compute(key, (k, e) -> {
            if (e == null) {
                return new Entry(null, null, null, null, List.of(offered));
            }
            if (e.status() != null) {
                // the receipt came first: only the frozen proposal of a waiting action is kept
                return e.status() == ReceiptStatus.WAITING_APPROVAL && frozen(offered, e)
                        ? new Entry(e.status(), e.actionDigest(), e.orgId(), e.updatedAt(), List.of(offered)) : e;
            }
            if (e.candidates().contains(offered) || e.candidates().size() >= MAX_CANDIDATES) {
                return e;
            }
            List<Proposed> c = new ArrayList<>(e.candidates());
            c.add(offered);
            return new Entry(null, null, null, null, List.copyOf(c));
        });
    }

    void receipt(String key, Receipt r) {
        entries.compute(key, (k, e) -> {
            List<Proposed> candidates = e == null ? List.of() : e.candidates();
            if (r.getStatus() != ReceiptStatus.WAITING_APPROVAL) {
                waitingKeys.remove(k);
                return NOT_WAITING; // no longer waiting (or never did): nothing of its proposal is kept
            }
            Entry next = new Entry(r.getStatus(), r.getActionDigest(), r.getOrgId(), r.getUpdatedAt(), List.of());
            List<Proposed> kept = candidates.stream().filter(c -> frozen(c, next)).limit(1).toList();
            waitingKeys.add(k);
            return new Entry(next.status(), next.actionDigest(), next.orgId(), next.updatedAt(), kept);
        });
    }

    /** A tombstone on {@code proposals}: what it said is forgotten. */
    void forgetProposal(String key) {
        entries.computeIfPresent(key, (k, e) -> e == NOT_WAITING ? e
                : new Entry(e.status(), e.actionDigest(), e.orgId(), e.updatedAt(), List.of()));
    }

    /** The actions that wait now and whose frozen proposal is known. */
    List<Waiting> waiting() {
        List<Waiting> out = new ArrayList<>();
        for (String key : waitingKeys) {
            Entry e = entries.get(key);
            if (e != null && e.status() == ReceiptStatus.WAITING_APPROVAL && !e.candidates().isEmpty()
                    && e.updatedAt() != null) {
                out.add(new Waiting(ActionKey.parse(key), e.candidates().get(0), e.updatedAt()));
            }
        }
        return out;
    }

    /** Actions waiting whose frozen proposal is not (yet) known: nobody can be told about them. */
    long waitingWithoutProposal() {
        return waitingKeys.stream().map(entries::get).filter(e -> e != null && e.candidates().isEmpty()).count();
    }

    int size() {
        return entries.size();
    }

    private static boolean frozen(Proposed p, Entry receipt) {
        return p.actionDigest().equals(receipt.actionDigest())
                && (receipt.orgId() == null || receipt.orgId().equals(p.orgId()));
    }

    /** The notice's part of a proposal, or null when its action digest cannot be derived. */
    private static Proposed proposed(ActionProposal p) {
        String digest;
        try {
            digest = Digests.actionDigest(FrozenAction.of(p));
        } catch (IllegalArgumentException e) {
            return null;
        }
        return new Proposed(p.getOrgId(), p.getProfileId(), p.getProvider(), p.getOperation(), p.getToolName(),
                p.getSummary(), digest);
    }
}
