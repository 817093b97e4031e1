package io.actiongate.loadtest.report;

/** One invariant a part checked on its own output: its part, its name, whether it held, and what was counted. */
public record Invariant(String part, String name, boolean held, String detail) {
}
