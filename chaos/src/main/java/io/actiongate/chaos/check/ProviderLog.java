package io.actiongate.chaos.check;

import java.util.Map;
import java.util.TreeMap;

/**
 * What the provider saw, per idempotency key: dispatch requests ({@code posts}, whatever their fate), requests that
 * reached the apply step ({@code applied}), effects recorded and lookups. Written by the run, read by the checker.
 *
 * <p>{@code applied} is the figure that matters for at-most-once: the sandbox provider deduplicates by key, so its
 * own effect count can never exceed one, but a provider without an idempotency store would have applied every
 * request that reached the apply step. A 429 or a connection dropped before applying is not counted: the gate may
 * retry those under the same key (one idempotency key per action).
 */
public record ProviderLog(Map<String, Entry> byKey) {

    public record Entry(int posts, int applied, int effects, int lookups) {
    }

    public ProviderLog {
        byKey = new TreeMap<>(byKey);
    }

    public Entry entry(String key) {
        return byKey.getOrDefault(key, new Entry(0, 0, 0, 0));
    }
}
