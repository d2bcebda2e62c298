package io.heliotrope.cli.vm;

import io.heliotrope.cli.client.CatalogClient;
import io.heliotrope.cli.client.ClientConfig;
import io.heliotrope.cli.client.RunnerClient;
import io.heliotrope.cli.client.Target;
import io.heliotrope.cli.client.VmClient;
import io.heliotrope.cli.print.Json;
import io.heliotrope.cli.print.Sizes;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.DiskEpochs;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.controller.v1.Vm;
import io.heliotrope.proto.controller.v1.VmSpec;
import io.heliotrope.proto.storage.v1.VmRuntime;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;

import static io.heliotrope.cli.print.Sizes.format;

@Command(name = "vm",
        mixinStandardHelpOptions = true,
        description = "Define, run and move VMs. A VM is a QEMU guest whose disks are Heliotrope images, attached over NBD at the "
                + "site it runs at; the controller keeps its definition and history, the site's runner its QEMU.",
        subcommands = {VmCommand.Create.class, VmCommand.Start.class, VmCommand.Stop.class, VmCommand.List.class, VmShow.class, VmConsole.class,
                VmMigrate.class, VmCommand.Remove.class})
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
            try (RunnerClient runner = vms.runner(vm.getSite())) {
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
            try (RunnerClient runner = vms.runner(vm.getSite())) {
                VmRuntime stopped = runner.stop(name, kill);
                out.printf("stopped VM %s at %s (%s)%n", name, vm.getSite(), stopped.getExitReason().isEmpty() ? stopped.getState() : stopped.getExitReason());
            }
            return 0;
        }
    }

    @Command(name = "ls", mixinStandardHelpOptions = true, description = "The VMs, where they run, their state there and their migrations.")
    static final class List extends Subcommand {
        @Option(names = "--json", description = "Print JSON instead (a VmList: each VM's record, its QEMU, its disks' leases; see vm_views.proto).")
        boolean json;

        @Override
        int run(VmClient vms, PrintStream out) {
            try (CatalogClient catalog = new CatalogClient(vms.target())) {
                Json.print(json, VmViews.list(vms, catalog), out, (list, to) -> VmViews.print(list, to, ""));
            }
            return 0;
        }
    }

    @Command(name = "rm", mixinStandardHelpOptions = true,
            description = "Remove a VM's definition and migration history; its disks stay in the catalog. Refused while its QEMU runs "
                    + "or it migrates, unless --force (which kills the QEMU).")
    static final class Remove extends Subcommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Option(names = "--force", description = "Kill the VM's QEMU if it runs.")
        boolean force;

        @Override
        int run(VmClient vms, PrintStream out) {
            Vm vm = vms.get(name);
            if (vm.hasInFlight()) {
                throw new HeliotropeException(ErrorCode.VM_BUSY, "VM " + name + " is migrating to " + vm.getInFlight().getToSite()
                        + "; wait for the migration, or cancel it with `helio vm migrate " + name + " --cancel`");
            }
            try (RunnerClient runner = vms.runner(vm.getSite())) {
                VmRuntime runtime = runner.get(name);
                if (!runtime.getState().equals("exited")) {
                    if (!force) {
                        throw new HeliotropeException(ErrorCode.VM_BUSY, "VM " + name + " runs at " + vm.getSite() + " (" + runtime.getState()
                                + "); stop it first (`helio vm stop " + name + "`), or give --force to kill it");
                    }
                    runner.stop(name, true);
                }
            } catch (HeliotropeException e) {
                if (e.code() != ErrorCode.VM_NOT_FOUND) {
                    throw e;
                }
            }
            vms.delete(name);
            out.printf("removed VM %s (its disks %s stay in the catalog)%n", name,
                    vm.getSpec().getDisksCount() == 0 ? "-" : String.join(", ", vm.getSpec().getDisksList()));
            return 0;
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
