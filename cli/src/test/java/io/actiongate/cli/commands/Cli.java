package io.actiongate.cli.commands;

import java.io.PrintWriter;
import java.io.StringWriter;

import io.actiongate.cli.Main;

/** Runs the real {@code actiongate} command line in-process and captures its output. */
final class Cli {

    record Result(int exitCode, String out, String err) {
    }

    private Cli() {
    }

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Result(code, out.toString(), err.toString());
    }
}
