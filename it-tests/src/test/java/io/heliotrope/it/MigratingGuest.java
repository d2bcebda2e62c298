package io.heliotrope.it;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.MigrationRecord;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

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

    private final ControllerExtension cluster;
    private final WanSites sites;
    private final String name;
    private final String disk;
    private final String nonce = UUID.randomUUID().toString().replace("-", "");

    private MigratingGuest(ControllerExtension cluster, WanSites sites, String name) {
        this.cluster = cluster;
        this.sites = sites;
        this.name = name;
        this.disk = name + "-records";
    }

    /** Two sites on the cluster's first controller, and the guest running at virginia. */
    static MigratingGuest start(ControllerExtension cluster, String name, String... siteOptions) {
        RecordGuest guest = RecordGuest.build();
        WanSites sites = new WanSites(cluster.controller(0).target(), WanSites.WAN_75MS, SITES, siteOptions);
        MigratingGuest migrating = new MigratingGuest(cluster, sites, name);
        try {
            migrating.helio("image", "create", migrating.disk, "--size", "64M", "--home", "virginia").assertSuccess();
            migrating.helio("vm", "create", name, "--site", "virginia", "--disk", migrating.disk, "--memory", "128M",
                    "--kernel", guest.kernel().toString(), "--initrd", guest.initrd().toString(),
                    "--append", RecordGuest.kernelArgs(migrating.nonce)).assertSuccess();
            migrating.helio("vm", "start", name).assertSuccess();
            return migrating;
        } catch (RuntimeException | AssertionError e) {
            sites.close();
            throw e;
        }
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
        Records.verifyNbd(sites.site(site).nbdUri(disk), nonce, last, scratch);
    }

    @Override
    public void close() {
        try (Cleanup cleanup = new Cleanup()) {
            cleanup.add(sites::close);
            cleanup.add(() -> helio("vm", "stop", name, "--kill"));
        }
    }
}
