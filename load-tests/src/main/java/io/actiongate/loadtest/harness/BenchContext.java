package io.actiongate.loadtest.harness;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.actiongate.broker.EmbeddedKafkaBroker;

import io.actiongate.loadtest.report.BenchRow;
import io.actiongate.loadtest.report.Invariant;

/**
 * What every part of one benchmark run shares: the options, a state directory, the output, the progress line, one
 * embedded broker (started on first use, stopped at the end), the rows measured so far, and the invariants checked.
 */
public final class BenchContext implements AutoCloseable {

    private final BenchOptions options;
    private final Path stateRoot;
    private final PrintStream out;
    private final Progress progress;
    private final List<BenchRow> rows = new ArrayList<>();
    private final List<Invariant> invariants = new ArrayList<>();
    private final Map<Class<?>, Object> attachments = new HashMap<>();
    private EmbeddedKafkaBroker broker;
    private String currentPart = "";

    public BenchContext(BenchOptions options, Path stateRoot, PrintStream out, Progress progress) {
        this.options = options;
        this.stateRoot = stateRoot;
        this.out = out;
        this.progress = progress;
    }

    public BenchOptions options() {
        return options;
    }

    /** A directory of this run, deleted at its end. */
    public Path stateRoot() {
        return stateRoot;
    }

    public PrintStream out() {
        return out;
    }

    public Progress progress() {
        return progress;
    }

    /** The run's embedded KRaft broker, started on first call. */
    public synchronized String bootstrap() throws Exception {
        if (broker == null) {
            broker = EmbeddedKafkaBroker.builder().start();
        }
        return broker.bootstrapServers();
    }

    public void enter(String part) {
        currentPart = part;
    }

    public void add(List<BenchRow> measured) {
        rows.addAll(measured);
    }

    public List<BenchRow> rows() {
        return List.copyOf(rows);
    }

    /** The row with this id measured earlier in the run, if any. */
    public Optional<BenchRow> row(String id) {
        return rows.stream().filter(r -> r.id().equals(id)).findFirst();
    }

    /** Records an invariant the current part checked on its own output; a failed one fails the run. */
    public void invariant(String name, boolean held, String detail) {
        invariants.add(new Invariant(currentPart, name, held, detail));
    }

    public List<Invariant> invariants() {
        return List.copyOf(invariants);
    }

    /** Leaves a typed figure for later parts and the report (e.g. the record budget of row f); one per type. */
    public synchronized <T> void attach(Class<T> type, T value) {
        attachments.put(type, type.cast(value));
    }

    /** What an earlier part {@link #attach attached} under {@code type}, if any. */
    public synchronized <T> Optional<T> attachment(Class<T> type) {
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
