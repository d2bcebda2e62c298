package io.heliotrope.scheduler.migration;

import io.heliotrope.proto.controller.v1.MigrationInFlight;
import io.heliotrope.proto.scheduler.v1.MigrationPhase;
import io.heliotrope.proto.scheduler.v1.MigrationProgress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static java.util.Objects.requireNonNull;

/**
 * A migration's progress, sent to its watchers at every change and to the controller (the
 * VM's {@code in_flight}, which the status page and {@code vm show} read) at each phase
 * change and at most once a second between, off the migration's thread so that a slow
 * controller never lengthens a switchover. After {@link #stopReporting}, no report reaches
 * the controller any more: the migration's record, which clears {@code in_flight}, comes last.
 */
final class ProgressReports {
    private static final Logger log = LoggerFactory.getLogger(ProgressReports.class);
    private static final long REPORT_PERIOD_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final ClusterCalls cluster;
    private final Executor reporter;
    private final MigrationInFlight identity;
    private final List<Consumer<MigrationProgress>> watchers = new CopyOnWriteArrayList<>();
    /** Held by a report to the controller while it is sent, and to stop them. */
    private final Object reportLock = new Object();
    private boolean stopped;
    private volatile MigrationProgress last;
    private MigrationPhase reportedPhase;
    private long reportedNanos;

    /**
     * @param identity what every report carries: the migration's id, sites, start, who asked and its ensemble
     * @param first the progress until the first {@link #publish}, which is the first report
     */
    ProgressReports(ClusterCalls cluster, Executor reporter, MigrationInFlight identity, MigrationProgress first) {
        this.cluster = requireNonNull(cluster, "cluster is null");
        this.reporter = requireNonNull(reporter, "reporter is null");
        this.identity = requireNonNull(identity, "identity is null");
        this.last = requireNonNull(first, "first is null");
    }

    MigrationProgress last() {
        return last;
    }

    /** Sends {@code watcher} the progress now and every change after, the result last. */
    void watch(Consumer<MigrationProgress> watcher) {
        watchers.add(watcher);
        MigrationProgress now = last;
        watcher.accept(now);
        if (now.getPhase() == MigrationPhase.MIGRATION_PHASE_DONE) {
            watchers.remove(watcher);
        }
    }

    void unwatch(Consumer<MigrationProgress> watcher) {
        watchers.remove(watcher);
    }

    void publish(MigrationProgress now) {
        last = now;
        watchers.forEach(watcher -> watcher.accept(now));
        long nanos = System.nanoTime();
        if (now.getPhase() != reportedPhase || nanos - reportedNanos >= REPORT_PERIOD_NANOS) {
            reportedPhase = now.getPhase();
            reportedNanos = nanos;
            MigrationInFlight report = identity.toBuilder()
                    .setPhase(now.getPhase().name().substring("MIGRATION_PHASE_".length()).toLowerCase(Locale.ROOT).replace('_', '-'))
                    .setReportedEpochMillis(System.currentTimeMillis())
                    .setRamTotal(now.getRamTotal())
                    .setRamRemaining(now.getRamRemaining())
                    .setStorageBacklogBytes(now.getStorageBacklogBytes())
                    .build();
            reporter.execute(() -> report(now.getVm(), report));
        }
    }

    /** Waits for a report under way; none reaches the controller after. */
    void stopReporting() {
        synchronized (reportLock) {
            stopped = true;
        }
    }

    /** The last progress, with the result: sent to the watchers, who are then let go. */
    void done(MigrationProgress result) {
        last = result;
        watchers.forEach(watcher -> watcher.accept(result));
        watchers.clear();
    }

    private void report(String vm, MigrationInFlight report) {
        synchronized (reportLock) {
            if (stopped) {
                return;
            }
            try {
                cluster.reportMigration(vm, report);
            } catch (RuntimeException e) {
                log.info("{}: cannot report migration {} to the controller: {}", vm, report.getId(), e.getMessage());
            }
        }
    }
}
