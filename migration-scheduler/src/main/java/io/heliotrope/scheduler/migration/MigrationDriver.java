package io.heliotrope.scheduler.migration;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.controller.v1.Vm;
import io.heliotrope.proto.scheduler.v1.MigrateRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static java.util.Objects.requireNonNull;

/**
 * The long-lived migration driver beside the controller: starts migrations, at most one per
 * VM and {@link DriverConfig#maxOutgoing()} out of a site at once, each on a thread of its
 * own, and finds the one in flight for a VM. A migration goes on whatever happens to the
 * call that started it.
 */
public final class MigrationDriver implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MigrationDriver.class);

    private final DriverConfig config;
    private final ClusterCalls cluster;
    private final Function<String, SiteCalls> sites;
    private final ExecutorService migrations;
    private final ScheduledExecutorService renewals;
    /** Migrations in flight, by VM. Guarded by this. */
    private final Map<String, Migration> inFlight = new HashMap<>();

    /** @param sites the calls to a registered site, by name ({@code SITE_NOT_FOUND} for another) */
    public MigrationDriver(DriverConfig config, ClusterCalls cluster, Function<String, SiteCalls> sites) {
        this.config = requireNonNull(config, "config is null");
        this.cluster = requireNonNull(cluster, "cluster is null");
        this.sites = requireNonNull(sites, "sites is null");
        AtomicInteger threads = new AtomicInteger();
        this.migrations = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "migration-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        this.renewals = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "migration-renewals");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Starts moving the VM; fails at once when it cannot start (unknown VM or site, already there, busy). */
    public Migration start(MigrateRequest request) {
        Vm vm = cluster.vm(request.getVm());
        String from = vm.getSite();
        if (request.getToSite().equals(from)) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "VM '" + request.getVm() + "' runs at " + from + " already");
        }
        SiteCalls source = sites.apply(from);
        SiteCalls destination = sites.apply(request.getToSite());
        Migration migration;
        synchronized (this) {
            Migration running = inFlight.get(request.getVm());
            if (running != null) {
                throw new HeliotropeException(ErrorCode.VM_BUSY, "VM '" + request.getVm() + "' is migrating to " + running.toSite() + " already");
            }
            long outgoing = inFlight.values().stream().filter(other -> other.fromSite().equals(from)).count();
            if (outgoing >= config.maxOutgoing()) {
                throw new HeliotropeException(ErrorCode.VM_BUSY, "site " + from + " has " + outgoing + " migrations out already (at most "
                        + config.maxOutgoing() + "); try again when one has ended");
            }
            migration = new Migration(UUID.randomUUID().toString(), vm, request, config, cluster, source, destination, renewals);
            inFlight.put(request.getVm(), migration);
        }
        migration.result().whenComplete((record, failure) -> {
            synchronized (this) {
                inFlight.remove(request.getVm(), migration);
            }
        });
        log.info("{}: migrating from {} to {} (asked by {})", request.getVm(), from, request.getToSite(),
                request.getRequestedBy().isEmpty() ? "operator" : request.getRequestedBy());
        migrations.execute(migration);
        return migration;
    }

    /** The VM's migration in flight, if any. */
    public synchronized Optional<Migration> inFlight(String vm) {
        return Optional.ofNullable(inFlight.get(vm));
    }

    /** Cancels the VM's migration in flight; completes with its result (completed when it was past its commit point). */
    public CompletableFuture<MigrationRecord> cancel(String vm, String by) {
        Migration migration = inFlight(vm).orElseThrow(() ->
                new HeliotropeException(ErrorCode.VM_BUSY, "VM '" + vm + "' has no migration in flight"));
        migration.cancel(by);
        return migration.result();
    }

    /** The VM's newest recorded migration, if it ever migrated. */
    public Optional<MigrationRecord> lastRecord(String vm) {
        Vm known = cluster.vm(vm);
        return known.getMigrationsCount() == 0 ? Optional.empty() : Optional.of(known.getMigrations(known.getMigrationsCount() - 1));
    }

    @Override
    public void close() {
        renewals.shutdownNow();
        migrations.shutdownNow();
        try {
            migrations.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
