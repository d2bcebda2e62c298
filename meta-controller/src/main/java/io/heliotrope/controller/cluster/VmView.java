package io.heliotrope.controller.cluster;

import io.heliotrope.controller.lease.Lease;
import io.heliotrope.controller.service.ControllerService;
import io.heliotrope.controller.vm.MigrationInFlight;
import io.heliotrope.controller.vm.MigrationRecord;
import io.heliotrope.controller.vm.Vm;
import io.heliotrope.controller.vm.VmService;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.storage.v1.VmRuntime;

import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * The VMs as the status port shows them ({@link VmsStatus}): their definitions and
 * migrations from the {@link VmService}, their disks' leases from the catalog, and what each
 * site's runner said at the cluster view's last round.
 */
public final class VmView {
    /** The migrations done shown, across every VM. */
    public static final int HISTORY = 20;

    private final VmService vms;
    private final ControllerService service;
    private final ClusterView cluster;
    private final Clock clock;

    public VmView(VmService vms, ControllerService service, ClusterView cluster, Clock clock) {
        this.vms = requireNonNull(vms, "vms is null");
        this.service = requireNonNull(service, "service is null");
        this.cluster = requireNonNull(cluster, "cluster is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    public CompletableFuture<VmsStatus> statusAsync() {
        return vms.list().thenCompose(list -> {
            Map<String, CompletableFuture<VmsStatus.Disk>> disks = list.stream()
                    .flatMap(vm -> vm.spec().disks().stream())
                    .distinct()
                    .collect(Collectors.toMap(Function.identity(), this::disk));
            return CompletableFuture.allOf(disks.values().toArray(CompletableFuture[]::new))
                    .thenApply(ignored -> status(list, image -> disks.get(image).join()));
        });
    }

    private VmsStatus status(List<Vm> list, Function<String, VmsStatus.Disk> disks) {
        long now = clock.millis();
        return new VmsStatus(now,
                list.stream().map(vm -> state(vm, disks)).toList(),
                list.stream().filter(vm -> vm.inFlight() != null).map(vm -> inFlight(vm.name(), vm.inFlight(), now)).toList(),
                list.stream()
                        .flatMap(vm -> vm.migrations().stream().map(record -> done(vm.name(), record)))
                        .sorted(Comparator.comparingLong(VmsStatus.Done::endedEpochMillis).reversed())
                        .limit(HISTORY)
                        .toList());
    }

    private VmsStatus.VmState state(Vm vm, Function<String, VmsStatus.Disk> disks) {
        SiteRunners.Answer here = cluster.runners().of(vm.site());
        Optional<VmRuntime> runtime = here.vms().stream().filter(candidate -> candidate.getName().equals(vm.name())).findFirst();
        String state = here.answered() ? runtime.map(VmRuntime::getState).orElse("not running") : here.unknown();
        return new VmsStatus.VmState(vm.name(), vm.site(), state, runtime.map(VmRuntime::getExitReason).orElse(""), vm.spec().memoryBytes(),
                vm.spec().vcpus(), cluster.runners().runtimes(vm.name()).stream().map(VmView::runtime).toList(),
                vm.spec().disks().stream().map(disks).toList());
    }

    private static VmsStatus.Runtime runtime(VmRuntime runtime) {
        return new VmsStatus.Runtime(runtime.getSite(), runtime.getState(), runtime.getExitReason(), runtime.getIncoming(),
                runtime.getMigrationStatus());
    }

    private CompletableFuture<VmsStatus.Disk> disk(String image) {
        return service.getLease(image).handle((lease, failure) -> failure == null
                ? disk(image, lease)
                : new VmsStatus.Disk(image, "", 0, "", HeliotropeException.rootMessage(failure)));
    }

    private static VmsStatus.Disk disk(String image, Lease lease) {
        return new VmsStatus.Disk(image, lease.holder(), lease.epoch(), lease.movingTo(), "");
    }

    private static VmsStatus.InFlight inFlight(String vm, MigrationInFlight migration, long now) {
        long total = migration.ramTotal();
        double sent = total == 0 ? 0 : 100.0 * (total - Math.min(total, migration.ramRemaining())) / total;
        return new VmsStatus.InFlight(vm, migration.id(), migration.fromSite(), migration.toSite(), migration.phase(),
                migration.startedEpochMillis(), migration.reportedEpochMillis(), Math.max(0, now - migration.startedEpochMillis()), total,
                migration.ramRemaining(), sent, migration.storageBacklogBytes(), migration.requestedBy(), migration.ensembleId(),
                migration.staleAt(now));
    }

    private static VmsStatus.Done done(String vm, MigrationRecord record) {
        return new VmsStatus.Done(vm, record.id(), record.startedEpochMillis(), record.endedEpochMillis(), record.fromSite(), record.toSite(),
                record.outcome().name().toLowerCase(Locale.ROOT), record.reason(), record.totalMicros(), record.downtimeMicros(),
                record.handoffMicros(), record.ramBytes(), record.storagePushedBytes(), record.storageFetchedBytes(), record.requestedBy(),
                record.ensembleId());
    }
}
