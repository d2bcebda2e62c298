package io.heliotrope.cli.vm;

import io.heliotrope.cli.client.ClientConfig;
import io.heliotrope.cli.client.RunnerClient;
import io.heliotrope.cli.client.Target;
import io.heliotrope.cli.client.VmClient;
import io.heliotrope.cli.print.CliErrors;
import io.heliotrope.cli.print.DurationConverter;
import io.heliotrope.cli.print.Json;
import io.heliotrope.cli.print.Progress;
import io.heliotrope.cli.print.Sizes;
import io.heliotrope.cli.print.Table;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.DiskEpochs;
import io.heliotrope.proto.controller.v1.MigrationOutcome;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.controller.v1.Vm;
import io.heliotrope.proto.controller.v1.VmSpec;
import io.heliotrope.proto.scheduler.v1.MigrateRequest;
import io.heliotrope.proto.scheduler.v1.OnTimeout;
import io.heliotrope.proto.storage.v1.VmRuntime;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;

import static io.heliotrope.cli.print.Sizes.format;

@Command(name = "vm",
        mixinStandardHelpOptions = true,
        description = "Define, run and move VMs. A VM is a QEMU guest whose disks are Heliotrope images, attached over NBD at the "
                + "site it runs at; the controller keeps its definition and history, the site's runner its QEMU.",
        subcommands = {VmCommand.Create.class, VmCommand.Start.class, VmCommand.Stop.class, VmCommand.List.class, VmCommand.Migrate.class})
public final class VmCommand {
    @Option(names = "--controller", paramLabel = "HOST:PORT", scope = ScopeType.INHERIT,
            description = "The cluster's controller (default: $" + Target.ENV + ", else the one `helio up` wrote to ~/.config/heliotrope/client.yaml).")
    String controller;

    abstract static class Subcommand implements Callable<Integer> {
        @ParentCommand
        VmCommand parent;

        @Override
        public Integer call() {
            try (VmClient vms = new VmClient(Target.controller(parent.controller, System.getenv(), ClientConfig.defaultPath()))) {
                return run(vms, System.out);
            }
        }

        abstract int run(VmClient vms, PrintStream out);
    }

    @Command(name = "create", mixinStandardHelpOptions = true, description = "Define a VM at a site (it does not start it).")
    static final class Create extends Subcommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Option(names = "--site", required = true, paramLabel = "SITE", description = "Where it runs first.")
        String site;

        @Option(names = "--disk", paramLabel = "IMAGE", description = "An image of the catalog, attached as the next virtio disk (repeat for more).")
        java.util.List<String> disks = new java.util.ArrayList<>();

        @Option(names = "--memory", paramLabel = "SIZE", converter = Sizes.class, defaultValue = "256M",
                description = "Guest memory (default: ${DEFAULT-VALUE}).")
        long memory;

        @Option(names = "--vcpus", paramLabel = "N", defaultValue = "1", description = "Virtual CPUs (default: ${DEFAULT-VALUE}).")
        int vcpus;

        @Option(names = "--kernel", paramLabel = "FILE", description = "Boot this kernel directly (a path on every site's host); else the first disk boots.")
        Path kernel;

        @Option(names = "--initrd", paramLabel = "FILE", description = "The initramfs for --kernel.")
        Path initrd;

        @Option(names = "--append", paramLabel = "ARGS", description = "The kernel command line for --kernel, e.g. 'console=ttyS0'.")
        String append;

        @Option(names = "--accel", paramLabel = "tcg|kvm", defaultValue = "tcg",
                description = "QEMU's accelerator (default: ${DEFAULT-VALUE}; kvm only where guests run under it).")
        String accel;

        @Override
        int run(VmClient vms, PrintStream out) {
            if ((initrd != null || append != null) && kernel == null) {
                throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "--initrd and --append go with --kernel");
            }
            VmSpec.Builder spec = VmSpec.newBuilder().setName(name).setMemoryBytes(memory).setVcpus(vcpus).addAllDisks(disks).setAccel(accel);
            if (kernel != null) {
                spec.setKernel(kernel.toAbsolutePath().toString());
            }
            if (initrd != null) {
                spec.setInitrd(initrd.toAbsolutePath().toString());
            }
            if (append != null) {
                spec.setAppend(append);
            }
            Vm vm = vms.create(spec.build(), site);
            out.printf("created VM %s at %s (%s, %d vCPU%s, disks %s)%n", name, vm.getSite(), format(memory), vcpus, vcpus == 1 ? "" : "s",
                    disks.isEmpty() ? "none" : String.join(", ", disks));
            return 0;
        }
    }

    @Command(name = "start", mixinStandardHelpOptions = true, description = "Start the VM's QEMU at the site it runs at.")
    static final class Start extends Subcommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Override
        int run(VmClient vms, PrintStream out) {
            Vm vm = vms.get(name);
            try (RunnerClient runner = new RunnerClient(vm.getSite(), vms.siteAddress(vm.getSite()))) {
                VmRuntime started = runner.start(vm.getSpec());
                out.printf("started VM %s at %s (pid %d; console log %s)%n", name, vm.getSite(), started.getPid(), started.getConsoleLog());
            }
            return 0;
        }
    }

    @Command(name = "stop", mixinStandardHelpOptions = true, description = "Stop the VM's QEMU (quit; --kill if it does not answer).")
    static final class Stop extends Subcommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Option(names = "--kill", description = "Kill QEMU at once instead of asking it to quit.")
        boolean kill;

        @Override
        int run(VmClient vms, PrintStream out) {
            Vm vm = vms.get(name);
            try (RunnerClient runner = new RunnerClient(vm.getSite(), vms.siteAddress(vm.getSite()))) {
                VmRuntime stopped = runner.stop(name, kill);
                out.printf("stopped VM %s at %s (%s)%n", name, vm.getSite(), stopped.getExitReason().isEmpty() ? stopped.getState() : stopped.getExitReason());
            }
            return 0;
        }
    }

    @Command(name = "ls", mixinStandardHelpOptions = true, description = "The VMs, where they run and their state there.")
    static final class List extends Subcommand {
        @Override
        int run(VmClient vms, PrintStream out) {
            Table table = new Table("<<<>><<", "NAME", "SITE", "STATE", "MEMORY", "VCPUS", "DISKS", "LAST MIGRATION");
            for (Vm vm : vms.list()) {
                table.add(vm.getSpec().getName(), vm.getSite(), state(vms, vm), format(vm.getSpec().getMemoryBytes()), vm.getSpec().getVcpus(),
                        vm.getSpec().getDisksCount() == 0 ? "-" : String.join(",", vm.getSpec().getDisksList()),
                        vm.getMigrationsCount() == 0 ? "-" : summary(vm.getMigrations(vm.getMigrationsCount() - 1)));
            }
            table.print(out, "");
            return 0;
        }

        /** The QEMU's state as the VM's site reports it, or why it cannot be had. */
        private static String state(VmClient vms, Vm vm) {
            try (RunnerClient runner = new RunnerClient(vm.getSite(), vms.siteAddress(vm.getSite()))) {
                return runner.get(vm.getSpec().getName()).getState();
            } catch (HeliotropeException e) {
                return e.code() == ErrorCode.VM_NOT_FOUND ? "stopped" : "unknown (" + e.code().name().toLowerCase(Locale.ROOT) + ")";
            }
        }

        private static String summary(MigrationRecord record) {
            return record.getFromSite() + " -> " + record.getToSite() + " " + outcome(record);
        }
    }

    @Command(name = "migrate", mixinStandardHelpOptions = true,
            description = {"Move a running VM to another site, live: its RAM by QEMU, its disks' write leases by a fenced handoff at the "
                    + "switchover (never two writers), the blocks the destination lacks pushed ahead. The migration runs in the driver "
                    + "beside the controller: Ctrl-C only stops watching it (`helio vm migrate NAME --watch` follows it again); "
                    + "--cancel cancels it, rolling it back unless the destination has resumed the guest."})
    static final class Migrate extends Subcommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Option(names = "--to", paramLabel = "SITE", description = "The destination site.")
        String to;

        @Option(names = "--cancel", description = "Cancel the VM's migration in flight.")
        boolean cancel;

        @Option(names = "--watch", description = "Follow the VM's migration in flight (or show its last result).")
        boolean watch;

        @Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class,
                description = "Give pre-copy this long (e.g. 60s), then act as --on-timeout says (default: no limit).")
        Duration timeout;

        @Option(names = "--on-timeout", paramLabel = "cancel|force", defaultValue = "cancel",
                description = "At --timeout: cancel (roll back, the VM keeps running at its site) or force (pause the guest so that "
                        + "pre-copy completes; default: ${DEFAULT-VALUE}).")
        String onTimeout;

        @Option(names = "--handoff-deadline", paramLabel = "DURATION", converter = DurationConverter.class,
                description = "How long the lease's move may take at the switchover before the migration rolls back (default: 5s).")
        Duration handoffDeadline;

        @Option(names = "--json", description = "Print the result as JSON (the controller's MigrationRecord) instead of for people.")
        boolean json;

        @Override
        int run(VmClient vms, PrintStream out) {
            if (cancel) {
                MigrationRecord record = vms.cancel(name);
                Json.print(json, record, out, (result, to) -> printResult(name, result, to));
                return 0;
            }
            MigrationView view = new MigrationView(!json && Progress.stderrIsTerminal() ? System.err : null);
            MigrationRecord record;
            if (watch) {
                record = vms.watch(name, view::show);
            } else {
                if (to == null) {
                    throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "give --to SITE (or --cancel, or --watch)");
                }
                MigrateRequest.Builder request = MigrateRequest.newBuilder().setVm(name).setToSite(to)
                        .setOnTimeout(onTimeout(onTimeout));
                if (timeout != null) {
                    request.setTimeoutMillis(timeout.toMillis());
                }
                if (handoffDeadline != null) {
                    request.setHandoffDeadlineMillis(handoffDeadline.toMillis());
                }
                record = vms.migrate(request.build(), view::show);
            }
            view.close();
            Json.print(json, record, out, (result, to) -> printResult(name, result, to));
            return record.getOutcome() == MigrationOutcome.MIGRATION_OUTCOME_COMPLETED ? 0 : CliErrors.USER_ERROR;
        }

        private static OnTimeout onTimeout(String value) {
            return switch (value.toLowerCase(Locale.ROOT)) {
                case "cancel" -> OnTimeout.ON_TIMEOUT_CANCEL;
                case "force" -> OnTimeout.ON_TIMEOUT_FORCE;
                default -> throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "--on-timeout is cancel or force, not '" + value + "'");
            };
        }
    }

    /** What {@code vm migrate} prints at the end: from, to, outcome and the figures of the migration. */
    static void printResult(String name, MigrationRecord record, PrintStream out) {
        if (record.getId().isEmpty()) {
            out.println("VM " + name + " has never migrated");
            return;
        }
        out.printf("VM %s: %s -> %s %s%s%n", name, record.getFromSite(), record.getToSite(), outcome(record),
                record.getReason().isEmpty() ? "" : " (" + record.getReason() + ")");
        out.printf("  total time     %s%n", millis(record.getTotalMicros()));
        if (record.getDowntimeMicros() > 0) {
            out.printf("  guest downtime %s   (source STOP to destination RESUME)%n", millis(record.getDowntimeMicros()));
            out.printf("  handoff        %s   (source pre-switchover to device)%n", millis(record.getHandoffMicros()));
        }
        out.printf("  RAM            %s%n", format(record.getRamBytes()));
        out.printf("  storage        %s pushed before, %s fetched after%n", format(record.getStoragePushedBytes()), format(record.getStorageFetchedBytes()));
        for (DiskEpochs disk : record.getEpochsList()) {
            out.printf("  lease of %s   epoch %d -> %d%n", disk.getImage(), disk.getEpochBefore(), disk.getEpochAfter());
        }
    }

    static String outcome(MigrationRecord record) {
        return switch (record.getOutcome()) {
            case MIGRATION_OUTCOME_COMPLETED -> "completed";
            case MIGRATION_OUTCOME_ROLLED_BACK -> "rolled back";
            case MIGRATION_OUTCOME_CANCELLED -> "cancelled";
            case MIGRATION_OUTCOME_FAILED -> "failed";
            default -> "unknown";
        };
    }

    static String millis(long micros) {
        return micros >= 10_000_000 ? String.format(Locale.ROOT, "%.1f s", micros / 1e6) : String.format(Locale.ROOT, "%d ms", micros / 1000);
    }
}
