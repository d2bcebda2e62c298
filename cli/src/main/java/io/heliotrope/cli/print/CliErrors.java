package io.heliotrope.cli.print;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import picocli.CommandLine;

import java.io.PrintWriter;

/** The one place that turns a failure into the CLI's one-line message and exit code. */
public final class CliErrors {
    public static final int USER_ERROR = 1;
    static final int INTERNAL_ERROR = 2;

    private CliErrors() {}

    /** A mistake on the command line: one line naming it and where help is, whichever subcommand it was in. */
    public static int usage(CommandLine.ParameterException mistake) {
        CommandLine command = mistake.getCommandLine();
        PrintWriter err = command.getErr();
        err.println("helio: " + mistake.getMessage() + " (see '" + command.getCommandSpec().qualifiedName() + " --help')");
        err.flush();
        return USER_ERROR;
    }

    public static int report(Throwable failure, PrintWriter err) {
        Throwable cause = HeliotropeException.unwrap(failure);
        if (cause instanceof HeliotropeException e) {
            err.println("helio: " + e.getMessage());
            err.flush();
            return e.code().kind() == ErrorCode.Kind.INTERNAL ? INTERNAL_ERROR : USER_ERROR;
        }
        err.println("helio: internal error: " + cause);
        cause.printStackTrace(err);
        err.flush();
        return INTERNAL_ERROR;
    }
}
