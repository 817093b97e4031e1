package io.actiongate.mcp;

/**
 * Who a tool host is, as its bearer token says: the proposal's {@code principal_id}, {@code org_id} and
 * {@code profile_id} come from here, never from a tool call's arguments.
 */
public record HostIdentity(String principalId, String orgId, String profileId) {
}
