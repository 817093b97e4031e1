package io.actiongate.loadtest.harness;

import java.util.List;

import io.actiongate.loadtest.report.BenchRow;

/**
 * One named part of the benchmark (see {@link BenchOptions#PARTS}). A part measures and returns its rows; it
 * records every invariant it checks on its own output with {@link BenchContext#invariant}, so that a fast but
 * wrong run fails. It may read the rows of the parts that ran before it ({@link BenchContext#row}).
 */
public interface BenchPart {

    /** The part's name as {@code --only}/{@code --skip} take it. */
    String name();

    /** A one-line heading for the report. */
    String title();

    List<BenchRow> run(BenchContext ctx) throws Exception;
}
