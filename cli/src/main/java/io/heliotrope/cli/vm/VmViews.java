package io.heliotrope.cli.vm;

import io.heliotrope.cli.client.CatalogClient;
import io.heliotrope.cli.client.RunnerClient;
import io.heliotrope.cli.client.VmClient;
import io.heliotrope.cli.print.Table;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.cli.v1.VmList;
import io.heliotrope.proto.cli.v1.VmView;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.controller.v1.Vm;
import io.heliotrope.proto.storage.v1.VmRuntime;

import java.io.PrintStream;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import static io.heliotrope.cli.print.Sizes.format;
import static io.heliotrope.cli.vm.VmCommand.outcome;

/**
 * VMs as helio shows them ({@code vm ls}, {@code vm show}, {@code status}): the controller's
 * record, the QEMU the runner at the VM's site reports (asked now, once per site), and its
 * disks' write leases.
 */
public final class VmViews {
    static final String STOPPED = "stopped";

    private VmViews() {}

    /** Every VM of the cluster. */
    public static VmList list(VmClient vms, CatalogClient catalog) {
        List<Vm> all = vms.list();
        Map<String, SiteAnswer> answers = new HashMap<>();
        Map<String, String> sites = all.isEmpty() ? Map.of() : vms.sites();
        VmList.Builder list = VmList.newBuilder();
        for (Vm vm : all) {
            SiteAnswer answer = answers.computeIfAbsent(vm.getSite(), site -> SiteAnswer.ask(site, sites.get(site)));
            list.addVms(view(vm, answer.runtime(vm.getSpec().getName()), answer.unknown, catalog));
        }
        return list.build();
    }

    /** One VM. */
    static VmView of(Vm vm, VmClient vms, CatalogClient catalog) {
        Optional<VmRuntime> runtime;
        String unknown = "";
        try (RunnerClient runner = vms.runner(vm.getSite())) {
            runtime = Optional.of(runner.get(vm.getSpec().getName()));
        } catch (HeliotropeException e) {
            runtime = Optional.empty();
            unknown = e.code() == ErrorCode.VM_NOT_FOUND ? "" : unknown(e);
        }
        return view(vm, runtime, unknown, catalog);
    }

    /** The table {@code vm ls} prints, each line after {@code indent}. */
    public static void print(VmList list, PrintStream out, String indent) {
        Table table = new Table("<<<>><<", "NAME", "SITE", "STATE", "MEMORY", "VCPUS", "DISKS", "MIGRATION");
        for (VmView view : list.getVmsList()) {
            Vm vm = view.getVm();
            table.add(vm.getSpec().getName(), vm.getSite(), view.getState(), format(vm.getSpec().getMemoryBytes()), vm.getSpec().getVcpus(),
                    vm.getSpec().getDisksCount() == 0 ? "-" : String.join(",", vm.getSpec().getDisksList()), migration(vm));
        }
        table.print(out, indent);
    }

    /** The migration in flight, else the last one's outcome. */
    private static String migration(Vm vm) {
        if (vm.hasInFlight()) {
            return "to " + vm.getInFlight().getToSite() + " (" + vm.getInFlight().getPhase() + ")";
        }
        if (vm.getMigrationsCount() == 0) {
            return "-";
        }
        MigrationRecord last = vm.getMigrations(vm.getMigrationsCount() - 1);
        return "last: " + last.getFromSite() + " -> " + last.getToSite() + " " + outcome(last);
    }

    private static VmView view(Vm vm, Optional<VmRuntime> runtime, String unknown, CatalogClient catalog) {
        VmView.Builder view = VmView.newBuilder().setVm(vm);
        runtime.ifPresent(view::setRuntime);
        view.setState(runtime.map(VmRuntime::getState).orElse(unknown.isEmpty() ? STOPPED : unknown));
        for (String disk : vm.getSpec().getDisksList()) {
            Lease lease;
            try {
                lease = catalog.lease(disk);
            } catch (HeliotropeException e) {
                lease = Lease.newBuilder().setImage(disk).build();
            }
            view.addLeases(lease);
        }
        return view.build();
    }

    private static String unknown(HeliotropeException e) {
        return "unknown (" + e.code().name().toLowerCase(Locale.ROOT).replace('_', ' ') + ")";
    }

    /** What one site's runner said it runs, or why it said nothing. */
    private record SiteAnswer(Map<String, VmRuntime> runtimes, String unknown) {
        static SiteAnswer ask(String site, String address) {
            if (address == null) {
                return new SiteAnswer(Map.of(), "unknown (site not registered)");
            }
            try (RunnerClient runner = new RunnerClient(site, address)) {
                Map<String, VmRuntime> runtimes = new HashMap<>();
                runner.list().forEach(runtime -> runtimes.put(runtime.getName(), runtime));
                return new SiteAnswer(runtimes, "");
            } catch (HeliotropeException e) {
                return new SiteAnswer(Map.of(), VmViews.unknown(e));
            }
        }

        Optional<VmRuntime> runtime(String vm) {
            return Optional.ofNullable(runtimes.get(vm));
        }
    }
}
