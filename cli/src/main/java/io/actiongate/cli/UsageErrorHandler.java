package io.actiongate.cli;

import java.io.PrintWriter;

import picocli.CommandLine;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;

/** A bad command line: one line saying what is wrong, a pointer to help, exit code {@value ExitCodes#USAGE}. */
final class UsageErrorHandler implements IParameterExceptionHandler {

    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cl = ex.getCommandLine();
        PrintWriter err = cl.getErr();
        err.println("error: " + ErrorHandler.message(ex));
        CommandLine.UnmatchedArgumentException.printSuggestions(ex, err);
        err.println("Run '" + cl.getCommandSpec().qualifiedName() + " --help' for usage.");
        err.flush();
        return ExitCodes.USAGE;
    }
}
