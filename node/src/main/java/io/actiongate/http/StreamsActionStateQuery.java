package io.actiongate.http;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.StreamsNotStartedException;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * {@link ActionStateQuery} over Kafka Streams interactive queries on a key-value store keyed by action key. The
 * active host of a key comes from {@link KafkaStreams#queryMetadataForKey}; this instance is the one whose
 * {@code application.server} equals {@code self}. The gate supplies the store name and the view function, which
 * must never put an input body into the JSON (the HTTP layer strips {@code input}/{@code input_json} anyway).
 */
public final class StreamsActionStateQuery<V> implements ActionStateQuery {

    private final KafkaStreams streams;
    private final String storeName;
    private final HostInfo self;
    private final Function<? super V, ? extends JsonNode> view;

    public StreamsActionStateQuery(KafkaStreams streams, String storeName, HostInfo self,
                                   Function<? super V, ? extends JsonNode> view) {
        this.streams = Objects.requireNonNull(streams, "streams");
        this.storeName = Objects.requireNonNull(storeName, "storeName");
        this.self = Objects.requireNonNull(self, "self");
        this.view = Objects.requireNonNull(view, "view");
    }

    @Override
    public Route route(String actionKey) {
        KeyQueryMetadata metadata;
        try {
            metadata = streams.queryMetadataForKey(storeName, actionKey, Serdes.String().serializer());
        } catch (StreamsNotStartedException | IllegalStateException e) {
            return new Unavailable("streams not running");
        }
        if (metadata == null || KeyQueryMetadata.NOT_AVAILABLE.equals(metadata)) {
            return new Unavailable("no active host for the key");
        }
        HostInfo active = metadata.activeHost();
        if (self.equals(active)) {
            return new Local();
        }
        return new Remote(active.host(), active.port());
    }

    /**
     * Whether the store answers queries now: what readiness asks of the gate, so that {@code /health/ready} answers
     * 200 only when {@code GET /v1/actions/...} would not answer 503 for a store that is not queryable yet.
     */
    public boolean queryable() {
        if (streams.state() != KafkaStreams.State.RUNNING) {
            return false;
        }
        try {
            streams.store(StoreQueryParameters.fromNameAndType(storeName, QueryableStoreTypes.<String, V>keyValueStore()))
                    .approximateNumEntries();
            return true;
        } catch (InvalidStateStoreException e) {
            return false;
        }
    }

    @Override
    public Optional<JsonNode> localState(String actionKey) {
        V value;
        try {
            ReadOnlyKeyValueStore<String, V> store = streams.store(
                    StoreQueryParameters.fromNameAndType(storeName, QueryableStoreTypes.<String, V>keyValueStore()));
            value = store.get(actionKey);
        } catch (InvalidStateStoreException e) {
            throw new StateUnavailableException("store " + storeName + " is not queryable now", e);
        }
        return Optional.ofNullable(value).map(view);
    }
}
