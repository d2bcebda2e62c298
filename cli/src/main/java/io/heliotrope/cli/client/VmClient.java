package io.heliotrope.cli.client;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.ControllerServiceGrpc;
import io.heliotrope.proto.controller.v1.CreateVmRequest;
import io.heliotrope.proto.controller.v1.GetVmRequest;
import io.heliotrope.proto.controller.v1.ListSitesRequest;
import io.heliotrope.proto.controller.v1.ListVmsRequest;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.controller.v1.Site;
import io.heliotrope.proto.controller.v1.Vm;
import io.heliotrope.proto.controller.v1.VmServiceGrpc;
import io.heliotrope.proto.controller.v1.VmSpec;
import io.heliotrope.proto.scheduler.v1.EnsembleProgress;
import io.heliotrope.proto.scheduler.v1.MigrateRequest;
import io.heliotrope.proto.scheduler.v1.MigrateTogetherRequest;
import io.heliotrope.proto.scheduler.v1.MigrationProgress;
import io.heliotrope.proto.scheduler.v1.MigrationServiceGrpc;
import io.heliotrope.proto.scheduler.v1.WatchMigrationRequest;

import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/** The controller's VMs and the migration driver beside it, as the CLI uses them. */
public final class VmClient extends GrpcClient {
    public VmClient(Target target) {
        super(target);
    }

    public Vm create(VmSpec spec, String site) {
        return call(() -> vms().createVm(CreateVmRequest.newBuilder().setSpec(spec).setSite(site).build()));
    }

    public Vm get(String name) {
        return call(() -> vms().getVm(GetVmRequest.newBuilder().setName(name).build()));
    }

    public List<Vm> list() {
        return call(() -> vms().listVms(ListVmsRequest.getDefaultInstance()).getVmsList());
    }

    /** Removes the VM's definition and history; its disks stay in the catalog. */
    public void delete(String name) {
        call(() -> vms().deleteVm(GetVmRequest.newBuilder().setName(name).build()));
    }

    /** The runner of a registered site, at the gRPC address it registered. */
    public RunnerClient runner(String site) {
        String address = sites().get(site);
        if (address == null) {
            throw new HeliotropeException(ErrorCode.SITE_NOT_FOUND, "no site '" + site + "' is registered");
        }
        return new RunnerClient(site, address);
    }

    /** The registered sites' gRPC addresses, by name. */
    public Map<String, String> sites() {
        List<Site> sites = call(() -> ControllerServiceGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS)
                .listSites(ListSitesRequest.getDefaultInstance()).getSitesList());
        return sites.stream().collect(Collectors.toMap(Site::getName, Site::getGrpcAddress));
    }

    /**
     * Streams a migration's progress to {@code progress} until it ends, then returns its
     * result. The migration runs in the driver: when this process stops, it goes on.
     */
    public MigrationRecord migrate(MigrateRequest request, Consumer<MigrationProgress> progress) {
        return follow(() -> MigrationServiceGrpc.newBlockingStub(channel).migrate(request), progress);
    }

    /**
     * Streams the progress of VMs switched over together to {@code progress} until all have
     * ended, then returns the last report (every member's result, the spread of their stops).
     */
    public EnsembleProgress migrateTogether(MigrateTogetherRequest request, Consumer<EnsembleProgress> progress) {
        return last(() -> MigrationServiceGrpc.newBlockingStub(channel).migrateTogether(request), progress, EnsembleProgress.getDefaultInstance());
    }

    public MigrationRecord watch(String vm, Consumer<MigrationProgress> progress) {
        return follow(() -> MigrationServiceGrpc.newBlockingStub(channel).watch(WatchMigrationRequest.newBuilder().setVm(vm).build()), progress);
    }

    public MigrationRecord cancel(String vm) {
        return call(() -> MigrationServiceGrpc.newBlockingStub(channel).cancel(WatchMigrationRequest.newBuilder().setVm(vm).build()));
    }

    private MigrationRecord follow(Supplier<Iterator<MigrationProgress>> start, Consumer<MigrationProgress> progress) {
        return last(start, progress, MigrationProgress.getDefaultInstance()).getResult();
    }

    /** Reads a stream to its end, each message to {@code progress}; the last message, or {@code none}. */
    private <T> T last(Supplier<Iterator<T>> start, Consumer<T> progress, T none) {
        return call(() -> {
            Iterator<T> stream = start.get();
            T last = none;
            while (stream.hasNext()) {
                last = stream.next();
                progress.accept(last);
            }
            return last;
        });
    }

    private VmServiceGrpc.VmServiceBlockingStub vms() {
        return VmServiceGrpc.newBlockingStub(channel).withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
    }
}
