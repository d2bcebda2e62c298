package io.heliotrope.it;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.heliotrope.proto.controller.v1.GetVmRequest;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.controller.v1.VmServiceGrpc;
import io.heliotrope.proto.scheduler.v1.EnsembleProgress;
import io.heliotrope.proto.storage.v1.GetVmRuntimeRequest;
import io.heliotrope.proto.storage.v1.VmEvent;
import io.heliotrope.proto.storage.v1.VmRunnerServiceGrpc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static io.heliotrope.it.Tools.helio;

/**
 * The records guest (see {@link RecordGuest}) as a Heliotrope VM: defined at virginia, one of
 * two sites 75 ms apart, its records disk an image homed there, started by {@code helio vm
 * start} and moved by {@code helio vm migrate}. Each site's runner logs the console of the
 * QEMU it runs, so the last acknowledged record is the largest complete one of both logs.
 */
final class MigratingGuest implements AutoCloseable {
    static final List<String> SITES = List.of("virginia", "taiwan");
    private static final Duration RECORDS_TIMEOUT = Duration.ofSeconds(180);
    private static final Duration QEMU_TIMEOUT = Duration.ofSeconds(60);
    /** A record the guest could not write: its disk failed it (EIO). */
    private static final String RECORD_ERROR = "HELIO-REC-ERROR";

    private final ControllerExtension cluster;
    private final WanSites sites;
    private final String name;
    private final String disk;
    private final String nonce = UUID.randomUUID().toString().replace("-", "");
    private final Map<String, ManagedChannel> runners = new ConcurrentHashMap<>();
    /** Whether closing the guest closes its sites too. */
    private final boolean ownsSites;

    private MigratingGuest(ControllerExtension cluster, WanSites sites, String name, boolean ownsSites) {
        this.cluster = cluster;
        this.sites = sites;
        this.name = name;
        this.disk = name + "-records";
        this.ownsSites = ownsSites;
    }

    /** Two sites on the cluster's first controller, and the guest running at virginia. */
    static MigratingGuest start(ControllerExtension cluster, String name, String... siteOptions) {
        return start(cluster, name, List.of(), siteOptions);
    }

    /** As above, its disk created with these options of {@code helio image create} (a mode, say). */
    static MigratingGuest start(ControllerExtension cluster, String name, List<String> imageOptions, String... siteOptions) {
        WanSites sites = sites(cluster, siteOptions);
        try {
            return startOn(cluster, sites, name, true, imageOptions);
        } catch (RuntimeException | AssertionError e) {
            sites.close();
            throw e;
        }
    }

    /** The two sites, for several guests. */
    static WanSites sites(ControllerExtension cluster, String... siteOptions) {
        return new WanSites(cluster.controller(0).target(), WanSites.WAN_75MS, SITES, siteOptions);
    }

    /** The guest running at virginia, one of {@code sites}, which it does not close. */
    static MigratingGuest startOn(ControllerExtension cluster, WanSites sites, String name) {
        return startOn(cluster, sites, name, false, List.of());
    }

    private static MigratingGuest startOn(ControllerExtension cluster, WanSites sites, String name, boolean ownsSites, List<String> imageOptions) {
        RecordGuest guest = RecordGuest.build();
        MigratingGuest migrating = new MigratingGuest(cluster, sites, name, ownsSites);
        List<String> create = new ArrayList<>(List.of("image", "create", migrating.disk, "--size", "64M", "--home", "virginia"));
        create.addAll(imageOptions);
        migrating.helio(create.toArray(String[]::new)).assertSuccess();
        migrating.helio("vm", "create", name, "--site", "virginia", "--disk", migrating.disk, "--memory", "128M",
                "--kernel", guest.kernel().toString(), "--initrd", guest.initrd().toString(),
                "--append", RecordGuest.kernelArgs(migrating.nonce)).assertSuccess();
        migrating.helio("vm", "start", name).assertSuccess();
        return migrating;
    }

    String name() {
        return name;
    }

    WanSites sites() {
        return sites;
    }

    String disk() {
        return disk;
    }

    Tools.Result helio(String... args) {
        String[] all = new String[args.length + 2];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--controller";
        all[args.length + 1] = cluster.controller(0).target();
        return Tools.helio(all);
    }

    Lease lease() {
        return cluster.client(0).status(disk).getLease();
    }

    /** The console logs of the guest's QEMUs, one per site. */
    List<Path> consoles() {
        return SITES.stream().map(site -> sites.site(site).dataDir().resolve("vms").resolve(name).resolve("console.log")).toList();
    }

    long lastRecord() {
        return Records.lastAcknowledged(consoles());
    }

    /** Waits until the guest acknowledged a record after {@code n}: it runs and writes. */
    long awaitRecordsPast(long n) {
        try {
            return Records.awaitAcknowledged(n + 1, RECORDS_TIMEOUT, consoles().toArray(Path[]::new));
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\n" + sites.logs(), e);
        }
    }

    /** The site the VM runs at, as the controller's VmService has it. */
    String site() {
        return VmServiceGrpc.newBlockingStub(cluster.controller(0).channel()).withDeadlineAfter(10, TimeUnit.SECONDS)
                .getVm(GetVmRequest.newBuilder().setName(name).build()).getSite();
    }

    /** Asserts that no console shows a record the guest failed to write. */
    void assertNoRecordFailed() {
        for (Path console : consoles()) {
            try {
                String text = Files.exists(console) ? Files.readString(console) : "";
                if (text.contains(RECORD_ERROR)) {
                    throw new AssertionError(console + " shows " + RECORD_ERROR + ": the guest saw an I/O error\n" + text);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** SIGKILL to the guest's QEMU at {@code site}, found by the pidfile its runner keeps. */
    void killQemu(String site) {
        Path pidFile = sites.site(site).dataDir().resolve("vms").resolve(name).resolve("qemu.pid");
        try {
            long pid = Long.parseLong(Files.readString(pidFile).strip());
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + pidFile, e);
        }
    }

    /**
     * The first event {@code event} with {@code detail} of the guest's QEMU at {@code site}
     * (e.g. MIGRATION, active), watched through the site runner's WatchVm from the moment the
     * runner has a live QEMU of the guest; its watchers run on the gRPC thread that got it.
     */
    CompletableFuture<VmEvent> event(String site, String event, String detail) {
        CompletableFuture<VmEvent> seen = new CompletableFuture<>();
        VmRunnerServiceGrpc.VmRunnerServiceStub runner = VmRunnerServiceGrpc.newStub(runner(site));
        GetVmRuntimeRequest request = GetVmRuntimeRequest.newBuilder().setName(name).build();
        CompletableFuture.runAsync(() -> {
            Await.until("a live QEMU of " + name + " at " + site, QEMU_TIMEOUT, () -> live(site));
            runner.watchVm(request, new StreamObserver<>() {
                @Override
                public void onNext(VmEvent next) {
                    if (next.getEvent().equals(event) && next.getDetail().equals(detail)) {
                        seen.complete(next);
                    }
                }

                @Override
                public void onError(Throwable failure) {
                    seen.completeExceptionally(failure);
                }

                @Override
                public void onCompleted() {
                    seen.completeExceptionally(new AssertionError("the watch of " + name + " at " + site + " ended before " + event + " " + detail));
                }
            });
        }).exceptionally(failure -> {
            seen.completeExceptionally(failure);
            return null;
        });
        return seen;
    }

    private boolean live(String site) {
        try {
            return !VmRunnerServiceGrpc.newBlockingStub(runner(site)).withDeadlineAfter(10, TimeUnit.SECONDS)
                    .getVm(GetVmRuntimeRequest.newBuilder().setName(name).build()).getState().equals("exited");
        } catch (StatusRuntimeException e) {
            return false;
        }
    }

    private ManagedChannel runner(String site) {
        return runners.computeIfAbsent(site, ignored -> Grpc.newChannelBuilder(sites.site(site).grpcTarget(), InsecureChannelCredentials.create()).build());
    }

    /** {@link #migrate} on another thread. */
    CompletableFuture<MigrationRecord> migrateAsync(String to, String... options) {
        return CompletableFuture.supplyAsync(() -> migrate(to, options));
    }

    /** Runs {@code helio vm migrate NAME --to SITE --json OPTIONS...} and returns its result, whatever it was. */
    MigrationRecord migrate(String to, String... options) {
        String[] args = new String[6 + options.length];
        System.arraycopy(new String[] {"vm", "migrate", name, "--to", to, "--json"}, 0, args, 0, 6);
        System.arraycopy(options, 0, args, 6, options.length);
        Tools.Result result = helio(args);
        MigrationRecord.Builder record = MigrationRecord.newBuilder();
        try {
            JsonFormat.parser().merge(result.stdout(), record);
        } catch (InvalidProtocolBufferException e) {
            throw new AssertionError("vm migrate printed no result: " + result + "\n" + sites.logs(), e);
        }
        return record.build();
    }

    /**
     * Runs {@code helio vm migrate A B ... --to SITE --together --json OPTIONS...} over guests
     * on the same sites and returns its last report, whatever the result was.
     */
    static EnsembleProgress migrateTogether(List<MigratingGuest> guests, String to, String... options) {
        List<String> args = new ArrayList<>(List.of("vm", "migrate"));
        guests.forEach(guest -> args.add(guest.name));
        args.addAll(List.of("--to", to, "--together", "--json"));
        args.addAll(List.of(options));
        Tools.Result result = guests.get(0).helio(args.toArray(String[]::new));
        EnsembleProgress.Builder progress = EnsembleProgress.newBuilder();
        try {
            JsonFormat.parser().merge(result.stdout(), progress);
        } catch (InvalidProtocolBufferException e) {
            throw new AssertionError("vm migrate --together printed no result: " + result + "\n" + guests.get(0).sites.logs(), e);
        }
        return progress.build();
    }

    /** For an assertion's message: the migration's result and what the sites logged. */
    String report(MigrationRecord record) {
        return record + "\n" + sites.logs();
    }

    /** Stops the guest and returns the last record it acknowledged. */
    long stop() {
        helio("vm", "stop", name).assertSuccess();
        return lastRecord();
    }

    /** Every record up to {@code last} is on the disk, read at {@code site}. */
    void verifyRecords(long last, String site, Path scratch) {
        try {
            Records.verifyNbd(sites.site(site).nbdUri(disk), nonce, last, scratch);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\n" + sites.logs(), e);
        }
    }

    @Override
    public void close() {
        try (Cleanup cleanup = new Cleanup()) {
            if (ownsSites) {
                cleanup.add(sites::close);
            }
            cleanup.add(() -> helio("vm", "stop", name, "--kill"));
            runners.values().forEach(channel -> cleanup.add(channel::shutdownNow));
        }
    }
}
