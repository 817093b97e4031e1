package io.actiongate.cli;

import java.io.PrintWriter;

import io.actiongate.kafka.KafkaFailures;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/** An exception from a command becomes one line on stderr and exit code 1; {@code --verbose} adds the trace. */
final class ErrorHandler implements IExecutionExceptionHandler {

    @Override
    public int handleExecutionException(Exception ex, CommandLine commandLine, ParseResult parseResult) {
        PrintWriter err = commandLine.getErr();
        err.println("error: " + message(ex));
        Object root = commandLine.getCommandSpec().root().userObject();
        if (root instanceof Main && ((Main) root).verbose()) {
            ex.printStackTrace(err);
        } else {
            err.println("(run with --verbose for details)");
        }
        err.flush();
        return ExitCodes.ERROR;
    }

    /** The first line of the message, or the exception type when there is none. */
    static String message(Throwable ex) {
        if (KafkaFailures.isSecurityFailure(ex)) {
            return KafkaFailures.explain(ex);
        }
        String message = ex.getMessage();
        if (message == null || message.isBlank()) {
            return ex.getClass().getSimpleName();
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message.trim() : message.substring(0, newline).trim();
    }
}
