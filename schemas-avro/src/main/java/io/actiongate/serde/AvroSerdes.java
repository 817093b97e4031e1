package io.actiongate.serde;

import java.util.concurrent.ConcurrentHashMap;

import org.apache.avro.specific.SpecificRecordBase;

/** One shared {@link AvroSerde} per record type. Serdes are thread-safe. */
public final class AvroSerdes {

    private static final ConcurrentHashMap<Class<?>, AvroSerde<?>> SERDES = new ConcurrentHashMap<>();

    private AvroSerdes() {
    }

    @SuppressWarnings("unchecked")
    public static <T extends SpecificRecordBase> AvroSerde<T> serde(Class<T> type) {
        return (AvroSerde<T>) SERDES.computeIfAbsent(type, t -> new AvroSerde<>(type, SchemaCatalog.released()));
    }
}
