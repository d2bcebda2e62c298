package io.heliotrope.cli.server;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Turns a port that is taken, wherever a server meets it (gRPC's Netty server, the NBD
 * server, the metrics HTTP server), into one line that names the port, what probably
 * holds it and the option that moves it, e.g. {@code port 10809 (virginia NBD) is in use,
 * probably by another helio up (pid 4242: java ... helio up); stop it or pick other ports
 * with --nbd-port}.
 */
public final class PortsInUse {
    /** The JDK's and Netty's text for EADDRINUSE. */
    private static final String IN_USE = "Address already in use";
    /** The main class bin/helio runs, in a holder's command line. */
    private static final String HELIO_MAIN = "io.heliotrope.cli.Helio";
    private static final int SHOWN_COMMAND_CHARS = 120;
    private static final PortHolders HOLDERS = new PortHolders(Path.of("/proc"));

    private PortsInUse() {}

    /** Fails with the one-line error when one of {@code ports} is taken now: run it before anything starts, and nothing needs undoing. */
    public static void check(List<ServerPort> ports) {
        Optional<ServerPort> taken = firstTaken(ports);
        if (taken.isPresent()) {
            throw inUse(taken.get());
        }
    }

    /**
     * The one-line error for {@code failure} when it is a failure to listen and one of
     * {@code ports} is taken; {@code failure} itself otherwise. Call it once what had
     * started is closed, so that none of the ports is this process's own.
     */
    public static Exception explain(Exception failure, List<ServerPort> ports) {
        if (!isBindFailure(failure)) {
            return failure;
        }
        return firstTaken(ports).<Exception>map(PortsInUse::inUse).orElse(failure);
    }

    /** The message for a taken port whose holder /proc shows, or not. */
    static String message(ServerPort port, Optional<PortHolders.Holder> holder) {
        String taken = "port " + port.port() + " (" + port.what() + ") is in use";
        String pickOther = " or pick other ports with " + port.option();
        return holder.map(h -> taken + ", probably by " + describe(h) + "; stop it" + pickOther)
                .orElse(taken + "; stop what holds it" + pickOther);
    }

    private static HeliotropeException inUse(ServerPort port) {
        Optional<PortHolders.Holder> holder = HOLDERS.find(port.port()).filter(h -> h.pid() != ProcessHandle.current().pid());
        return new HeliotropeException(ErrorCode.INVALID_ARGUMENT, message(port, holder));
    }

    private static Optional<ServerPort> firstTaken(List<ServerPort> ports) {
        return ports.stream().filter(PortsInUse::isTaken).findFirst();
    }

    private static boolean isTaken(ServerPort port) {
        if (port.port() == 0) {
            return false;
        }
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress(port.host(), port.port()));
            return false;
        } catch (IOException e) {
            return isBindFailure(e);
        }
    }

    private static boolean isBindFailure(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            String message = cause.getMessage();
            if (message != null && message.contains(IN_USE)) {
                return true;
            }
        }
        return false;
    }

    /** {@code another helio up (pid 4242: java ... helio up --data-dir /x)}, or {@code nc (pid 77: nc -l 10809)} for anything else. */
    private static String describe(PortHolders.Holder holder) {
        List<String> args = holder.commandLine();
        if (args.isEmpty()) {
            return "pid " + holder.pid();
        }
        String program = Path.of(args.get(0)).getFileName().toString();
        int main = args.indexOf(HELIO_MAIN);
        if (main < 0) {
            return program + " (pid " + holder.pid() + ": " + oneLine(program, args.subList(1, args.size())) + ")";
        }
        List<String> helioArgs = args.subList(main + 1, args.size());
        String command = helioArgs.isEmpty() || helioArgs.get(0).startsWith("-") ? "helio" : "helio " + helioArgs.get(0);
        return "another " + command + " (pid " + holder.pid() + ": " + oneLine(program + " ... helio", helioArgs) + ")";
    }

    /** The command on one line, cut short when long. */
    private static String oneLine(String program, List<String> args) {
        String command = (program + " " + String.join(" ", args)).replaceAll("\\s+", " ").strip();
        return command.length() <= SHOWN_COMMAND_CHARS ? command : command.substring(0, SHOWN_COMMAND_CHARS - 3) + "...";
    }
}
