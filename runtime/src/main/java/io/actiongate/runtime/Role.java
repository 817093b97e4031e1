package io.actiongate.runtime;

import java.util.Optional;

/**
 * One role a process runs (gate, executor, reconciler, approver, MCP gateway): started by the process, asked for
 * readiness by {@code /health/ready} and for failure by the process's watchdog, stopped in reverse order of start.
 */
public interface Role extends AutoCloseable {

    /** Starts one role from what the process shares with its roles ({@code C}); a failure throws. */
    @FunctionalInterface
    interface Starter<C> {
        Role start(C context) throws Exception;
    }

    /** The role's name, as in {@code --roles}. */
    String name();

    /** Whether the role serves now (its Kafka clients caught up, its loops alive). */
    boolean ready();

    /** Why the role stopped on its own, if it did: the process should exit then. */
    Optional<String> failure();

    /** Stops the role; must not throw for a role that already stopped. */
    @Override
    void close();
}
