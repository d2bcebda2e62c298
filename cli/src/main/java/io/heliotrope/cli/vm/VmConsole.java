package io.heliotrope.cli.vm;

import io.heliotrope.cli.client.RunnerClient;
import io.heliotrope.cli.client.VmClient;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.Vm;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

@Command(name = "console", mixinStandardHelpOptions = true,
        description = {"Attach to the VM's serial console wherever it runs: what the guest printed (the end of its console log, "
                + "or all of it with --from-start), then what it prints; what you type goes to the guest. When the VM migrates, the "
                + "console follows it to its new site and goes on from where the guest resumed there. Ends when the VM's QEMU exits "
                + "for good (Ctrl-C detaches at any time; the guest runs on)."})
final class VmConsole extends VmCommand.Subcommand {
    /** How long a console that ended at a VM's site waits for the migration that moved it to be recorded. */
    private static final Duration MOVE_PATIENCE = Duration.ofSeconds(120);
    private static final Duration POLL = Duration.ofMillis(200);

    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    @Option(names = "--from-start", description = "Print the whole console log first, not only its end.")
    boolean fromStart;

    @Option(names = "--tail", paramLabel = "BYTES", defaultValue = "2048",
            description = "Without --from-start: how much of the log's end to print first (from a line's start; default: ${DEFAULT-VALUE}).")
    long tail;

    @Override
    int run(VmClient vms, PrintStream out) {
        Vm vm = vms.get(name);
        String site = vm.getSite();
        AtomicReference<RunnerClient.Console> current = new AtomicReference<>();
        Thread typing = new Thread(() -> type(System.in, current), "helio-console-input");
        typing.setDaemon(true);
        typing.start();
        boolean fromLaunch = false;
        try {
            while (true) {
                String ended;
                try (RunnerClient runner = vms.runner(site); RunnerClient.Console console = runner.console(name, fromStart ? 0 : -tail, fromLaunch, out)) {
                    current.set(console);
                    ended = console.awaitEnd();
                    current.set(null);
                }
                String now = siteAfter(vms, site);
                if (now.equals(site)) {
                    System.err.printf("%n[helio: the QEMU of %s at %s exited: %s]%n", name, site, ended.isEmpty() ? "no reason given" : ended);
                    return 0;
                }
                System.err.printf("%n[helio: %s moved from %s to %s; its console there follows]%n", name, site, now);
                site = now;
                fromLaunch = true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HeliotropeException(ErrorCode.SHUTTING_DOWN, "interrupted");
        }
    }

    /** Where the VM runs once no migration of it is in flight (the one that stopped its QEMU at {@code site} is recorded). */
    private String siteAfter(VmClient vms, String site) throws InterruptedException {
        long deadline = System.nanoTime() + MOVE_PATIENCE.toNanos();
        Vm vm = vms.get(name);
        while (vm.hasInFlight() && vm.getSite().equals(site) && System.nanoTime() < deadline) {
            Thread.sleep(POLL.toMillis());
            vm = vms.get(name);
        }
        return vm.getSite();
    }

    /** Sends what is typed to the console attached now; at the end of input, the console goes on without. */
    private static void type(InputStream in, AtomicReference<RunnerClient.Console> current) {
        byte[] buffer = new byte[1024];
        try {
            for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                RunnerClient.Console console = current.get();
                if (console != null) {
                    console.type(buffer, read);
                }
            }
        } catch (IOException e) {
            // No input (a closed or broken stdin): the console only prints.
        }
    }
}
