package io.actiongate.cli.commands;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.concurrent.Callable;

import picocli.CommandLine;

import io.actiongate.kafka.KafkaFailures;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Base of the operator subcommands: {@code --help}, output through picocli's writers (so tests can capture it),
 * and the error convention: one line {@code error: ...} on stderr and a non-zero exit; the stack trace only when
 * the root command's {@code --verbose} is set.
 */
abstract class OperatorCommand implements Callable<Integer> {

    static final String VERBOSE_OPTION = "--verbose";

    @CommandLine.Spec
    CommandSpec spec;

    @CommandLine.Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    /** Does the work; returns the exit code. */
    abstract int execute() throws Exception;

    @Override
    public final Integer call() {
        try {
            return execute();
        } catch (CommandFailure e) {
            return fail(e.getMessage(), e, e.exitCode());
        } catch (IllegalArgumentException e) {
            return fail(e.getMessage(), e, CommandFailure.FAILED);
        } catch (UncheckedIOException e) {
            return fail(describe(e.getCause()), e, CommandFailure.FAILED);
        } catch (IOException e) {
            return fail(describe(e), e, CommandFailure.FAILED);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return fail("interrupted", e, CommandFailure.FAILED);
        } catch (org.apache.kafka.common.KafkaException e) {
            return fail(KafkaFailures.explain(e), e, CommandFailure.FAILED);
        } catch (Exception e) {
            return fail(describe(e), e, CommandFailure.FAILED);
        }
    }

    private int fail(String message, Throwable cause, int code) {
        PrintWriter err = err();
        err.println("error: " + (message == null || message.isBlank() ? cause.getClass().getSimpleName() : message));
        if (verbose()) {
            cause.printStackTrace(err);
        }
        err.flush();
        return code;
    }

    static String describe(Throwable e) {
        String message = e.getMessage();
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "no such file: " + message;
        }
        if (e instanceof java.nio.file.FileAlreadyExistsException) {
            return "refusing to overwrite " + message;
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied: " + message;
        }
        return message == null ? e.getClass().getSimpleName() : message;
    }

    boolean verbose() {
        if (spec == null) {
            return false;
        }
        // the root's --verbose is inherited: set either on this command's copy or on the root itself
        return isSet(spec.findOption(VERBOSE_OPTION)) || isSet(spec.root().findOption(VERBOSE_OPTION));
    }

    private static boolean isSet(OptionSpec option) {
        return option != null && Boolean.TRUE.equals(option.getValue());
    }

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    PrintWriter err() {
        return spec.commandLine().getErr();
    }
}
