package io.heliotrope.cli.vm;

import io.heliotrope.cli.client.CatalogClient;
import io.heliotrope.cli.client.VmClient;
import io.heliotrope.cli.print.Json;
import io.heliotrope.cli.print.Table;
import io.heliotrope.proto.cli.v1.VmView;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.MigrationInFlight;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.controller.v1.Vm;
import io.heliotrope.proto.controller.v1.VmSpec;
import io.heliotrope.proto.storage.v1.VmRuntime;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static io.heliotrope.cli.print.Sizes.format;
import static io.heliotrope.cli.vm.VmCommand.millis;
import static io.heliotrope.cli.vm.VmCommand.outcome;

@Command(name = "show", mixinStandardHelpOptions = true,
        description = "One VM: its definition, where it runs and its QEMU's state there (with the exit reason of a QEMU that "
                + "died), its disks' write leases, the migration in flight and its migration history (the newest 50), with who asked "
                + "for each.")
final class VmShow extends VmCommand.Subcommand {
    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    @Option(names = "--json", description = "Print JSON instead (a VmView: the VM's record, its QEMU, its disks' leases; see vm_views.proto).")
    boolean json;

    @Override
    int run(VmClient vms, PrintStream out) {
        try (CatalogClient catalog = new CatalogClient(vms.target())) {
            Json.print(json, VmViews.of(vms.get(name), vms, catalog), out, VmShow::print);
        }
        return 0;
    }

    static void print(VmView view, PrintStream out) {
        Vm vm = view.getVm();
        VmSpec spec = vm.getSpec();
        out.println("VM " + spec.getName());
        out.printf("  site       %s, %s%s%n", vm.getSite(), view.getState(), runtime(view));
        out.printf("  machine    %s, %d vCPU%s, %s%n", format(spec.getMemoryBytes()), spec.getVcpus(), spec.getVcpus() == 1 ? "" : "s",
                spec.getAccel().isEmpty() ? "tcg" : spec.getAccel());
        if (!spec.getKernel().isEmpty()) {
            out.printf("  boot       kernel %s%s%s%n", spec.getKernel(), spec.getInitrd().isEmpty() ? "" : ", initrd " + spec.getInitrd(),
                    spec.getAppend().isEmpty() ? "" : ", append '" + spec.getAppend() + "'");
        }
        for (Lease lease : view.getLeasesList()) {
            out.printf("  disk       %s: %s%n", lease.getImage(), lease(lease));
        }
        if (view.hasRuntime()) {
            out.printf("  console    %s%n", view.getRuntime().getConsoleLog());
        }
        out.printf("  created    %s%n", Instant.ofEpochMilli(vm.getCreatedEpochMillis()));
        if (vm.hasInFlight()) {
            MigrationInFlight migration = vm.getInFlight();
            out.printf("  migrating  %s -> %s, %s%s, since %s, asked by %s%s%n", migration.getFromSite(), migration.getToSite(), migration.getPhase(),
                    migration.getRamTotal() == 0 ? "" : String.format(Locale.ROOT, ", RAM %s of %s left", format(migration.getRamRemaining()),
                            format(migration.getRamTotal())),
                    Instant.ofEpochMilli(migration.getStartedEpochMillis()), migration.getRequestedBy(),
                    migration.getEnsembleId().isEmpty() ? "" : ", together (ensemble " + migration.getEnsembleId() + ")");
        }
        if (vm.getMigrationsCount() == 0) {
            out.println("migrations: none");
            return;
        }
        out.println("migrations (newest last; PAUSE: source STOP to destination RESUME):");
        Table table = new Table("<<<<>>>><<", "STARTED", "FROM", "TO", "OUTCOME", "PAUSE", "HANDOFF", "TOTAL", "RAM", "ASKED BY", "REASON");
        for (MigrationRecord record : vm.getMigrationsList()) {
            table.add(Instant.ofEpochMilli(record.getStartedEpochMillis()), record.getFromSite(), record.getToSite(), outcome(record)
                            + (record.getEnsembleId().isEmpty() ? "" : " (together)"),
                    record.getDowntimeMicros() > 0 ? millis(record.getDowntimeMicros()) : "-",
                    record.getHandoffMicros() > 0 ? millis(record.getHandoffMicros()) : "-", millis(record.getTotalMicros()),
                    format(record.getRamBytes()), record.getRequestedBy(), record.getReason().isEmpty() ? "-" : record.getReason());
        }
        table.print(out, "  ");
    }

    private static String runtime(VmView view) {
        if (!view.hasRuntime()) {
            return "";
        }
        VmRuntime runtime = view.getRuntime();
        List<String> parts = new ArrayList<>();
        if (runtime.getState().equals("exited")) {
            parts.add(runtime.getExitReason().isEmpty() ? "no exit reason known" : runtime.getExitReason());
        } else {
            parts.add("pid " + runtime.getPid());
        }
        if (runtime.getStartedEpochMillis() > 0) {
            parts.add("started " + Instant.ofEpochMilli(runtime.getStartedEpochMillis()));
        }
        return " (" + String.join(", ", parts) + ")";
    }

    private static String lease(Lease lease) {
        if (lease.getHolder().isEmpty()) {
            return lease.getEpoch() == 0 ? "no write lease" : "no writer (epoch " + lease.getEpoch() + ")";
        }
        return "write lease at " + lease.getHolder() + ", epoch " + lease.getEpoch()
                + (lease.getMovingTo().isEmpty() ? "" : ", moving to " + lease.getMovingTo());
    }
}
