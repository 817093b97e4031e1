package io.actiongate.gate.internal;

import java.util.Objects;

import io.actiongate.avro.ActionProposal;
import io.actiongate.digest.Digests;
import io.actiongate.digest.FrozenAction;

/**
 * Whether a proposal under a held key is the held action again (a redelivery) or another action (an identity
 * conflict). Identity is the whole frozen action, tenant included: org, principal, task version, provider,
 * operation, tool, input, summary, attachments and authorization epoch (what the action digest covers), and the
 * profile, which the digest does not cover but which decides the grant. Any difference is a conflict: the held
 * action's receipt is never answered to another org, principal or input.
 */
final class ActionIdentity {

    private ActionIdentity() {
    }

    /**
     * The offered proposal's action digest, or null when its input does not parse (then it cannot be the held
     * action, whose input parsed, or whose digest is unknown).
     */
    static String offeredDigest(ActionProposal p) {
        try {
            return Digests.actionDigest(FrozenAction.of(p));
        } catch (RuntimeException e) { // invalid JSON, a lone surrogate, a number out of range: never echoed
            return null;
        }
    }

    /**
     * Whether {@code offered} (whose action digest is {@code offeredDigest}, possibly null) is the held action.
     * When the held action has an action digest (its input was verified), the digests decide with the profile and
     * the claimed input digest; otherwise (refused before its input was verified) every field it kept does.
     */
    static boolean same(ActionState held, ActionProposal offered, String offeredDigest) {
        ActionState.Action a = held.action();
        boolean common = Objects.equals(a.orgId(), offered.getOrgId())
                && Objects.equals(a.principalId(), offered.getPrincipalId())
                && Objects.equals(a.profileId(), offered.getProfileId())
                && Objects.equals(a.provider(), offered.getProvider())
                && Objects.equals(a.operation(), offered.getOperation())
                && Objects.equals(a.toolName(), offered.getToolName())
                && Objects.equals(a.inputDigest(), offered.getInputDigest());
        if (!common) {
            return false;
        }
        if (held.actionDigest() != null) {
            return held.actionDigest().equals(offeredDigest);
        }
        // the attachments of a refused action are not compared: what of them is kept is not part of its identity
        return a.taskVersion() == offered.getTaskVersion()
                && a.authorizationEpoch() == offered.getAuthorizationEpoch()
                && Objects.equals(a.summary(), offered.getSummary());
    }

    /** The first field that differs (a field name only, for the log), or null when none of them does. */
    static String difference(ActionState held, ActionProposal offered, String offeredDigest) {
        ActionState.Action a = held.action();
        if (!Objects.equals(a.orgId(), offered.getOrgId())) {
            return "org_id";
        }
        if (!Objects.equals(a.principalId(), offered.getPrincipalId())) {
            return "principal_id";
        }
        if (!Objects.equals(a.profileId(), offered.getProfileId())) {
            return "profile_id";
        }
        if (!Objects.equals(a.provider(), offered.getProvider()) || !Objects.equals(a.operation(),
                offered.getOperation()) || !Objects.equals(a.toolName(), offered.getToolName())) {
            return "tool";
        }
        if (!Objects.equals(a.inputDigest(), offered.getInputDigest())) {
            return "input_digest";
        }
        return same(held, offered, offeredDigest) ? null : "action_digest";
    }
}
