package io.actiongate.mcp;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which host opened each MCP session (the {@code Mcp-Session-Id} the endpoint issues at {@code initialize}): a
 * session serves only the host (principal, org, profile) that opened it, so a session id, which is part of a derived
 * call id (docs/contract.md section 6, "Identity of a call"), cannot be borrowed by another host. Bounded: the
 * oldest bindings are forgotten first, and a forgotten session is refused as an unknown one (its client opens a new
 * session, as the MCP transport prescribes for a 404).
 */
final class SessionOwners {

    static final int DEFAULT_CAPACITY = 100_000;

    private final Map<String, HostIdentity> owners;

    SessionOwners(int capacity) {
        this.owners = new LinkedHashMap<>(1024, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, HostIdentity> eldest) {
                return size() > capacity;
            }
        };
    }

    synchronized void bind(String session, HostIdentity host) {
        owners.putIfAbsent(session, host);
    }

    /** Whether {@code host} may use {@code session}: only the host that opened it (an unknown session: nobody). */
    synchronized boolean mayUse(String session, HostIdentity host) {
        return host.equals(owners.get(session));
    }
}
