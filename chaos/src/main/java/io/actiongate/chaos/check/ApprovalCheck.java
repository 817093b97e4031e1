package io.actiongate.chaos.check;

import java.security.PublicKey;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import io.actiongate.avro.AttemptReservation;
import io.actiongate.avro.Decision;
import io.actiongate.avro.DecisionType;
import io.actiongate.digest.DecisionSigning;
import io.actiongate.key.ActionKey;

/**
 * Check (m) of the chaos run: no effect without exactly one valid approval. Every action of a tool that needs approval
 * and has an effect at the provider must have reservations that all name one and the same decision id, and the
 * {@code decisions} topic must hold that decision for the same action: an {@code APPROVE}, signed by a trusted key
 * (verified here with the JDK's Ed25519, from the decision's own fields), bound to the reservation's action digest,
 * and not expired when the attempt was reserved. A second approval published for the same action (an approver
 * replica killed after publishing, the person approving again on the other) is counted, not a violation: what
 * matters is that the gate used exactly one.
 */
final class ApprovalCheck {

    private ApprovalCheck() {
    }

    static void run(Map<String, List<AttemptReservation>> reservations, List<Decision> decisions,
                    ProviderLog provider, Map<String, PublicKey> trustedKeys, Set<String> approvalTools,
                    CheckResult result) {
        Map<String, List<Decision>> byKey = new java.util.HashMap<>();
        for (Decision d : decisions) {
            byKey.computeIfAbsent(ActionKey.format(d.getTaskId(), d.getToolCallId()), k -> new ArrayList<>()).add(d);
        }
        byKey.forEach((key, list) -> {
            long approvals = list.stream().filter(d -> d.getType() == DecisionType.APPROVE)
                    .map(Decision::getDecisionId).distinct().count();
            if (approvals > 1) {
                result.count("(m) actions with more than one approval published (the gate may use one)", 1);
            }
        });
        reservations.forEach((key, attempts) -> {
            int effects = 0;
            for (String k : new HashSet<>(attempts.stream().map(AttemptReservation::getIdempotencyKey).toList())) {
                ProviderLog.Entry entry = provider.entry(k);
                effects += Math.max(entry.applied(), entry.effects());
            }
            if (effects == 0 || attempts.isEmpty()) {
                return;
            }
            if (!approvalTools.contains(attempts.get(0).getToolName())) {
                result.count("(m) effects of tools without approval", 1);
                return;
            }
            result.count("(m) effects checked for exactly one valid approval", 1);
            Set<String> named = new TreeSet<>();
            boolean unnamed = false;
            for (AttemptReservation a : attempts) {
                if (a.getDecisionId() == null) {
                    unnamed = true;
                } else {
                    named.add(a.getDecisionId());
                }
            }
            if (unnamed || named.size() != 1) {
                result.violation("(m) " + key + " has a provider effect without exactly one approval: its "
                        + "reservations name " + (unnamed ? "no decision" + (named.isEmpty() ? "" : " and ") : "")
                        + (named.isEmpty() ? "" : "decisions " + named));
                return;
            }
            String decisionId = named.iterator().next();
            List<Decision> found = byKey.getOrDefault(key, List.of()).stream()
                    .filter(d -> decisionId.equals(d.getDecisionId())).toList();
            if (found.isEmpty()) {
                result.violation("(m) " + key + " has a provider effect whose approval " + decisionId
                        + " is not in decisions");
                return;
            }
            List<String> why = new ArrayList<>();
            for (Decision d : found) {
                String problem = invalid(d, attempts, trustedKeys);
                if (problem == null) {
                    return;
                }
                why.add(problem);
            }
            result.violation("(m) " + key + " has a provider effect whose approval " + decisionId
                    + " is not a valid approval: " + String.join("; ", why));
        });
    }

    /** Why {@code d} does not approve the reserved action, or null when it does. */
    private static String invalid(Decision d, List<AttemptReservation> attempts, Map<String, PublicKey> trusted) {
        if (d.getType() != DecisionType.APPROVE) {
            return "its type is " + d.getType();
        }
        PublicKey key = trusted.get(d.getKeyId());
        if (key == null) {
            return "key " + d.getKeyId() + " is not trusted";
        }
        if (!DecisionSigning.verify(d, key)) {
            return "its signature does not verify under key " + d.getKeyId();
        }
        for (AttemptReservation a : attempts) {
            if (!Objects.equals(a.getActionDigest(), d.getActionDigest())) {
                return "it approves action digest " + d.getActionDigest() + ", attempt " + a.getAttempt()
                        + " reserved " + a.getActionDigest();
            }
            if (d.getExpiresAt() != null && !a.getReservedAt().isBefore(d.getExpiresAt())) {
                return "it expired at " + d.getExpiresAt() + ", attempt " + a.getAttempt() + " was reserved at "
                        + a.getReservedAt();
            }
        }
        return null;
    }
}
