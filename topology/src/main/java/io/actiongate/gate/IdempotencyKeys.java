package io.actiongate.gate;

import java.nio.charset.StandardCharsets;

import io.actiongate.digest.Digests;

/**
 * The idempotency key the gate derives for an action whose proposal carries none (docs/contract.md: "the gate then
 * derives a stable one from the action key"). Public so that whoever looks up a provider's effects by key (the
 * benchmark's invariant checks, a provider stand-in) computes the same one without the gate's internals.
 */
public final class IdempotencyKeys {

    private IdempotencyKeys() {
    }

    /** Stable across attempts and restarts: {@code ag-} and the SHA-256 hex of {@code actiongate/<action key>}. */
    public static String derived(String actionKey) {
        return "ag-" + Digests.sha256Hex(("actiongate/" + actionKey).getBytes(StandardCharsets.UTF_8));
    }
}
