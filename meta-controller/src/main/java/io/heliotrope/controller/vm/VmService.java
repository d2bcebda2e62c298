package io.heliotrope.controller.vm;

import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.controller.Names;
import io.heliotrope.controller.site.SiteRegistry;
import io.heliotrope.controller.zookeeper.ZooKeeperLayout;
import io.heliotrope.controller.zookeeper.ZooKeeperStore;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.image.ImageNames;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * The VMs of the cluster, free of any transport: their definitions, the site each runs at
 * and their migrations, kept in ZooKeeper beside the images. What runs a VM is its site's
 * runner; what moves one is the driver, which records here. Every call runs on
 * {@code executor}, which owns the blocking ZooKeeper work.
 */
public final class VmService {
    private static final Logger log = LoggerFactory.getLogger(VmService.class);

    private final VmRegistry vms;
    private final SiteRegistry sites;
    private final ZooKeeperStore zk;
    private final ZooKeeperLayout layout;
    private final Clock clock;
    private final ExecutorService executor;
    private final MigrationMetrics metrics;

    public VmService(ZooKeeperStore zk, ZooKeeperLayout layout, Clock clock, ExecutorService executor, MigrationMetrics metrics) {
        this.zk = requireNonNull(zk, "zk is null");
        this.layout = requireNonNull(layout, "layout is null");
        this.vms = new VmRegistry(zk, layout);
        this.sites = new SiteRegistry(zk, layout);
        this.clock = requireNonNull(clock, "clock is null");
        this.executor = requireNonNull(executor, "executor is null");
        this.metrics = requireNonNull(metrics, "metrics is null");
    }

    /**
     * Defines a VM at {@code site}: refused with {@code VM_EXISTS} for a name in use,
     * {@code SITE_NOT_FOUND} for an unregistered site, {@code IMAGE_NOT_FOUND} for a disk that
     * is no image of the catalog.
     */
    public CompletableFuture<Vm> create(VmSpec spec, String site) {
        return async(() -> {
            sites.require(site);
            spec.disks().forEach(this::requireImage);
            Vm vm = vms.create(new Vm(spec, site, clock.millis(), 1, List.of(), null));
            log.info("{}: VM defined at {} ({} MiB, {} vCPUs, disks {})", spec.name(), site, spec.memoryBytes() / VmSpec.MEMORY_UNIT,
                    spec.vcpus(), spec.disks());
            return vm;
        });
    }

    public CompletableFuture<Vm> get(String name) {
        return async(() -> vms.get(name));
    }

    /** Every VM, in name order. */
    public CompletableFuture<List<Vm>> list() {
        return async(vms::list);
    }

    /** Removes the definition and its history; {@code VM_NOT_FOUND} when there is none. */
    public CompletableFuture<Void> delete(String name) {
        return async(() -> {
            vms.delete(name);
            log.info("{}: VM removed", name);
            return null;
        });
    }

    /**
     * Records that the VM runs at {@code site} now, if it is still at {@code version}
     * ({@code VM_BUSY} when another change came first).
     */
    public CompletableFuture<Vm> move(String name, String site, long version) {
        return async(() -> {
            sites.require(site);
            Vm moved = vms.update(name, current -> {
                if (current.version() != version) {
                    throw new HeliotropeException(ErrorCode.VM_BUSY, "VM '" + name + "' changed since it was read (version "
                            + current.version() + ", not " + version + "); read it again");
                }
                return current.movedTo(site);
            });
            log.info("{}: VM now at {} (version {})", name, site, moved.version());
            return moved;
        });
    }

    /**
     * Appends a migration's result to the VM's history, which keeps the newest
     * {@value Vm#MAX_MIGRATIONS}, clears its migration in flight and counts it in the metrics.
     * A record whose id is in the history already (a driver that retried) changes nothing.
     */
    public CompletableFuture<Vm> recordMigration(String name, MigrationRecord record) {
        requireNonNull(record, "record is null");
        return async(() -> {
            boolean[] appended = new boolean[1];
            Vm vm = vms.update(name, current -> {
                appended[0] = !current.recorded(record.id());
                return appended[0] ? current.withMigration(record) : current;
            });
            if (!appended[0]) {
                return vm;
            }
            metrics.recorded(record);
            log.info("{}: migration {} from {} to {}: {}{}", name, record.id(), record.fromSite(), record.toSite(), record.outcome(),
                    record.reason().isEmpty() ? "" : " (" + record.reason() + ")");
            return vm;
        });
    }

    /**
     * Sets the VM's migration in flight ({@code null}: none), stamped with the time it came. The
     * version stays (see {@link Vm}); the write is a compare-and-set on the znode all the same.
     * A report of a migration recorded already (one that came late) changes nothing.
     */
    public CompletableFuture<Vm> reportMigration(String name, MigrationInFlight inFlight) {
        return async(() -> vms.update(name, current -> {
            if (inFlight != null && current.recorded(inFlight.id())) {
                return current;
            }
            return current.withInFlight(inFlight == null ? null : inFlight.reportedAt(clock.millis()));
        }));
    }

    /** An image exists while its config znode does (see {@code ImageCatalog}). */
    private void requireImage(String image) {
        if (zk.read(layout.image(ImageNames.check(image)).config()).isEmpty()) {
            throw Names.imageNotFound(image);
        }
    }

    private <T> CompletableFuture<T> async(Supplier<T> action) {
        return BoundedExecutors.supplyAsync(action, executor, "the controller");
    }
}
