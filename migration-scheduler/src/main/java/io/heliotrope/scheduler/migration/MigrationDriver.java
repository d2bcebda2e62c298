package io.heliotrope.scheduler.migration;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.controller.v1.Vm;
import io.heliotrope.proto.scheduler.v1.MigrateRequest;
import io.heliotrope.proto.scheduler.v1.MigrateTogetherRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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
 * VM and {@link DriverConfig#maxOutgoing()} out of a site at once (an ensemble counts as one),
 * each on a thread of its own, and finds the one in flight for a VM. A migration goes on
 * whatever happens to the call that started it.
 */
public final class MigrationDriver implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MigrationDriver.class);

    private final DriverConfig config;
    private final ClusterCalls cluster;
    private final Function<String, SiteCalls> sites;
    private final ExecutorService migrations;
    private final ScheduledExecutorService renewals;
    private final ExecutorService reporter;
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
        this.renewals = Executors.newSingleThreadScheduledExecutor(task -> daemon(task, "migration-renewals"));
        this.reporter = Executors.newSingleThreadExecutor(task -> daemon(task, "migration-reports"));
    }

    private static Thread daemon(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }

    /** Starts moving the VM; fails at once when it cannot start (unknown VM or site, already there, busy). */
    public Migration start(MigrateRequest request) {
        return start(List.of(request), null).get(0);
    }

    /**
     * Starts moving the VMs to one site, switched over together; fails at once, starting
     * none, when one cannot start.
     */
    public List<Migration> startTogether(MigrateTogetherRequest together) {
        if (new HashSet<>(together.getVmsList()).size() != together.getVmsCount() || together.getVmsCount() < 2) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "migrating together needs two or more distinct VMs: " + together.getVmsList());
        }
        List<MigrateRequest> requests = new ArrayList<>();
        for (String vm : together.getVmsList()) {
            requests.add(MigrateRequest.newBuilder()
                    .setVm(vm)
                    .setToSite(together.getToSite())
                    .setTimeoutMillis(together.getTimeoutMillis())
                    .setOnTimeout(together.getOnTimeout())
                    .setRequestedBy(together.getRequestedBy())
                    .setHandoffDeadlineMillis(together.getHandoffDeadlineMillis())
                    .build());
        }
        Duration barrier = together.getBarrierMillis() == 0 ? config.barrier() : Duration.ofMillis(together.getBarrierMillis());
        return start(requests, new Ensemble(UUID.randomUUID().toString(), together.getVmsList(), barrier));
    }

    private List<Migration> start(List<MigrateRequest> requests, Ensemble ensemble) {
        List<Vm> vms = new ArrayList<>();
        for (MigrateRequest request : requests) {
            vms.add(cluster.vm(request.getVm()));
        }
        List<Migration> started = new ArrayList<>();
        Map<String, Integer> leaving = new HashMap<>();
        synchronized (this) {
            for (int i = 0; i < requests.size(); i++) {
                MigrateRequest request = requests.get(i);
                Vm vm = vms.get(i);
                String from = vm.getSite();
                if (request.getToSite().equals(from)) {
                    throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "VM '" + request.getVm() + "' runs at " + from + " already");
                }
                Migration running = inFlight.get(request.getVm());
                if (running != null) {
                    throw new HeliotropeException(ErrorCode.VM_BUSY, "VM '" + request.getVm() + "' is migrating to " + running.toSite() + " already");
                }
                if (leaving.merge(from, 1, Integer::sum) == 1) {
                    long outgoing = inFlight.values().stream().filter(other -> other.fromSite().equals(from)).map(Migration::group).distinct().count();
                    if (outgoing >= config.maxOutgoing()) {
                        throw new HeliotropeException(ErrorCode.VM_BUSY, "site " + from + " has " + outgoing + " migrations out already (at most "
                                + config.maxOutgoing() + "); try again when one has ended");
                    }
                }
            }
            for (int i = 0; i < requests.size(); i++) {
                MigrateRequest request = requests.get(i);
                started.add(new Migration(UUID.randomUUID().toString(), vms.get(i), request, config, cluster, sites.apply(vms.get(i).getSite()),
                        sites.apply(request.getToSite()), renewals, ensemble, reporter));
            }
            started.forEach(migration -> inFlight.put(migration.vmName(), migration));
        }
        for (Migration migration : started) {
            migration.result().whenComplete((record, failure) -> {
                synchronized (this) {
                    inFlight.remove(migration.vmName(), migration);
                }
            });
            log.info("{}: migrating from {} to {} (asked by {}{})", migration.vmName(), migration.fromSite(), migration.toSite(),
                    requests.get(0).getRequestedBy().isEmpty() ? "operator" : requests.get(0).getRequestedBy(),
                    ensemble == null ? "" : ", together with " + ensemble.members() + " as " + ensemble.id());
            migrations.execute(migration);
        }
        return started;
    }

    /** The VM's migration in flight, if any. */
    public synchronized Optional<Migration> inFlight(String vm) {
        return Optional.ofNullable(inFlight.get(vm));
    }

    /** The VMs with a migration in flight. */
    public synchronized Set<String> migrating() {
        return Set.copyOf(inFlight.keySet());
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
        reporter.shutdownNow();
        migrations.shutdownNow();
        try {
            migrations.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
