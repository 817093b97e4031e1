package io.actiongate.policy;

/**
 * The action a policy check is asked about: the frozen proposal's fields that the checks compare with the policy
 * (docs/contract.md section 4). The gate's action state implements it, so a check allocates nothing to ask.
 */
public interface CheckedAction {

    String taskId();

    long taskVersion();

    String orgId();

    String profileId();

    long authorizationEpoch();

    String provider();

    String operation();

    String toolName();

    String toolSchemaHash();

    /** The input the provider's classifier reads; null once the gate dropped it (a refused or settled action). */
    String inputJson();

    String summary();

    /** Whether the proposal carried its own idempotency key (the gate derives one from the action key otherwise). */
    boolean proposedIdempotencyKey();

    /** The conversation the action comes from, or null for an action without an origin. */
    Origin origin();

    /** An action's origin: the conversation, its turn and the messages the human and the assistant wrote. */
    interface Origin {

        String conversationId();

        String turnId();

        String assistantMessageId();

        String humanMessageId();
    }
}
