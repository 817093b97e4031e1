package io.actiongate.policy;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The in-memory snapshot of decoded policy records that every {@link PolicyLookup} of one gate instance shares, and
 * the signal that invalidates it: the gate's global-store processor calls {@link #changed} after each write of the
 * policy topic into the store, and {@link #reset} when the store is (re)initialised. A check then costs no store
 * read while nothing changed, and the next check after a change reads the new record.
 *
 * <p>Thread-safe: one writer (the global thread), many readers (the stream threads). A reader caches a record only
 * if no change of its key happened between its store read and its insert (a compare-and-set on the entry it saw), so
 * a slow reader never puts back a record older than the store's.
 */
public final class PolicyChanges {

    /** Above this many keys the snapshot starts again empty: it is a cache of the store, never the only copy. */
    static final int MAX_ENTRIES = 65_536;

    /** An entry: a decoded record, or a marker that a key is being loaded or has just changed. */
    sealed interface Entry permits Loaded, Pending {
    }

    /** The decoded record (null body when the store had none or it did not decode: absent). */
    record Loaded(Object body) implements Entry {
    }

    /** A key whose value is being read or changed: each marker is a distinct object, compared by identity. */
    static final class Pending implements Entry {
    }

    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    private final boolean caching;

    private PolicyChanges(boolean caching) {
        this.caching = caching;
    }

    /** A snapshot that the owner of the store invalidates through {@link #changed} and {@link #reset}. */
    public static PolicyChanges snapshot() {
        return new PolicyChanges(true);
    }

    /** No snapshot: every lookup reads the store (for a store nobody signals changes of). */
    public static PolicyChanges uncached() {
        return new PolicyChanges(false);
    }

    /** Call after {@code key} was written to or deleted from the store. */
    public void changed(String key) {
        if (caching) {
            // a present entry, loaded or pending, is replaced by a fresh marker: a reader between its store read
            // and its insert then fails its compare-and-set. An absent key has no reader about to insert.
            entries.computeIfPresent(key, (k, v) -> new Pending());
        }
    }

    /** Call when the store was (re)initialised or restored behind the processor's back. */
    public void reset() {
        entries.clear();
    }

    boolean caching() {
        return caching;
    }

    /** The cached entry, or a marker this reader now owns (absent key), or another reader's marker. */
    Entry begin(String key) {
        Entry seen = entries.get(key);
        if (seen != null) {
            return seen;
        }
        if (entries.size() >= MAX_ENTRIES) {
            entries.clear();
        }
        Pending mine = new Pending();
        Entry raced = entries.putIfAbsent(key, mine);
        return raced == null ? mine : raced;
    }

    /** Caches {@code loaded} for {@code key} if the entry is still the marker {@code seen}. */
    void complete(String key, Entry seen, Loaded loaded) {
        entries.replace(key, seen, loaded);
    }

    int size() {
        return entries.size();
    }
}
