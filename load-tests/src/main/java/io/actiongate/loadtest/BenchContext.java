package io.actiongate.loadtest;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.actiongate.broker.EmbeddedKafkaBroker;

/**
 * What every part of one benchmark run shares: the options, a state directory, the output, the progress line, one
 * embedded broker (started on first use, stopped at the end), the rows measured so far, and the invariants checked.
 */
final class BenchContext implements AutoCloseable {

    /** One checked invariant: its name, whether it held, and what was counted. */
    record Invariant(String part, String name, boolean held, String detail) {
    }

    private final BenchOptions options;
    private final Path stateRoot;
    private final PrintStream out;
    private final Progress progress;
    private final List<BenchRow> rows = new ArrayList<>();
    private final List<Invariant> invariants = new ArrayList<>();
    private final Map<Class<?>, Object> attachments = new HashMap<>();
    private EmbeddedKafkaBroker broker;
    private String currentPart = "";

    BenchContext(BenchOptions options, Path stateRoot, PrintStream out, Progress progress) {
        this.options = options;
        this.stateRoot = stateRoot;
        this.out = out;
        this.progress = progress;
    }

    BenchOptions options() {
        return options;
    }

    /** A directory of this run, deleted at its end. */
    Path stateRoot() {
        return stateRoot;
    }

    PrintStream out() {
        return out;
    }

    Progress progress() {
        return progress;
    }

    /** The run's embedded KRaft broker, started on first call. */
    synchronized String bootstrap() throws Exception {
        if (broker == null) {
            broker = EmbeddedKafkaBroker.builder().start();
        }
        return broker.bootstrapServers();
    }

    void enter(String part) {
        currentPart = part;
    }

    void add(List<BenchRow> measured) {
        rows.addAll(measured);
    }

    List<BenchRow> rows() {
        return List.copyOf(rows);
    }

    /** The row with this id measured earlier in the run, if any. */
    Optional<BenchRow> row(String id) {
        return rows.stream().filter(r -> r.id().equals(id)).findFirst();
    }

    /** Records an invariant the current part checked on its own output; a failed one fails the run. */
    void invariant(String name, boolean held, String detail) {
        invariants.add(new Invariant(currentPart, name, held, detail));
    }

    List<Invariant> invariants() {
        return List.copyOf(invariants);
    }

    /** Leaves a typed figure for later parts and the report (e.g. the record budget of row f); one per type. */
    synchronized <T> void attach(Class<T> type, T value) {
        attachments.put(type, type.cast(value));
    }

    /** What an earlier part {@link #attach attached} under {@code type}, if any. */
    synchronized <T> Optional<T> attachment(Class<T> type) {
        return Optional.ofNullable(type.cast(attachments.get(type)));
    }

    @Override
    public synchronized void close() {
        if (broker != null) {
            broker.close();
            broker = null;
        }
    }
}
