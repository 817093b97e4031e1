package io.actiongate.connector.testing;

import io.actiongate.connector.spi.DispatchRequest;
import io.actiongate.connector.spi.LookupRequest;

import java.time.Instant;
import java.util.List;

/** Reservations and lookups as the executor and reconciler would build them. */
public final class Requests {

    private Requests() {
    }

    public static DispatchRequest dispatch(String provider, String operation, String inputJson) {
        return dispatch(provider, operation, inputJson, "idem-T-1-C-1");
    }

    public static DispatchRequest dispatch(String provider, String operation, String inputJson, String key) {
        return new DispatchRequest("T-1", "C-1", 1, key, "acme", provider, operation, operation,
                inputJson, List.of(), Instant.parse("2030-01-01T00:00:00Z"));
    }

    public static LookupRequest lookup(String provider, String operation, String key, String inputJson) {
        return new LookupRequest("T-1", "C-1", 1, key, "acme", provider, operation, inputJson);
    }
}
