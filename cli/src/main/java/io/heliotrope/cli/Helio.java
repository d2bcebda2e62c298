package io.heliotrope.cli;

import io.heliotrope.cli.app.AppCommand;
import io.heliotrope.cli.app.SchedulerCommand;
import io.heliotrope.cli.cert.CertCommand;
import io.heliotrope.cli.image.ImageCommand;
import io.heliotrope.cli.print.CliErrors;
import io.heliotrope.cli.server.ControllerCommand;
import io.heliotrope.cli.server.Logging;
import io.heliotrope.cli.server.ServeCommand;
import io.heliotrope.cli.status.RttCommand;
import io.heliotrope.cli.status.StatusCommand;
import io.heliotrope.cli.up.UpCommand;
import io.heliotrope.cli.vm.VmCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/** The {@code helio} command. */
@Command(name = "helio",
        mixinStandardHelpOptions = true,
        versionProvider = Helio.Version.class,
        exitCodeOnInvalidInput = 1,
        description = "Heliotrope: geo-replicated block storage served over NBD.",
        subcommands = {UpCommand.class, ServeCommand.class, ControllerCommand.class, ImageCommand.class, VmCommand.class, AppCommand.class,
                SchedulerCommand.class, StatusCommand.class, RttCommand.class, CertCommand.class,
                CompletionCommand.class, CommandLine.HelpCommand.class},
        footer = {"", "Exit codes: 0 success, 1 a mistake in the request (message says which), 2 an internal failure."})
public final class Helio {
    public static void main(String[] args) {
        // Servers replace this with their console and log file as they start.
        Logging.console();
        System.exit(commandLine().execute(args));
    }

    public static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new Helio());
        commandLine.setCaseInsensitiveEnumValuesAllowed(true);
        commandLine.setExecutionExceptionHandler((failure, cmd, parseResult) -> CliErrors.report(failure, cmd.getErr()));
        commandLine.setParameterExceptionHandler((mistake, args) -> CliErrors.usage(mistake));
        return commandLine;
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Helio.class.getPackage().getImplementationVersion();
            return new String[] {"helio " + (version == null ? "development build" : version)};
        }
    }
}
