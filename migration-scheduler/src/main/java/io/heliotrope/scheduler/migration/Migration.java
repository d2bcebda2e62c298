package io.heliotrope.scheduler.migration;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.DiskEpochs;
import io.heliotrope.proto.controller.v1.MigrationInFlight;
import io.heliotrope.proto.controller.v1.MigrationOutcome;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.controller.v1.Vm;
import io.heliotrope.proto.scheduler.v1.MigrateRequest;
import io.heliotrope.proto.scheduler.v1.MigrationPhase;
import io.heliotrope.proto.scheduler.v1.MigrationProgress;
import io.heliotrope.proto.scheduler.v1.OnTimeout;
import io.heliotrope.proto.storage.v1.HandoverState;
import io.heliotrope.proto.storage.v1.MigrationState;
import io.heliotrope.proto.storage.v1.StartMigrationRequest;
import io.heliotrope.proto.storage.v1.VmRuntime;
import io.heliotrope.scheduler.migration.SiteCalls.Traffic;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * One live migration of a VM from its site A to site B, run on a thread of its own
 * (DESIGN.md section 4). The storage handoff at {@code pre-switchover} and the resume at
 * the destination are the runners' (no round trip here): this class prepares both sides,
 * starts both QEMUs, follows the source's progress and, when something fails before the
 * destination resumed (the commit point), rolls back: the destination's runner is asked to
 * abort first, and only when it says the guest never resumed does the lease go back to A.
 * A member of an {@link Ensemble} parks at {@code pre-switchover} instead, and hands over and
 * continues when the ensemble says so.
 */
public final class Migration implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(Migration.class);
    private static final Set<String> RUNNING = Set.of("running", "paused");
    private static final String EXITED = "exited";
    private static final Set<String> IN_FLIGHT = Set.of("setup", "active", "pre-switchover", "device", "postcopy-active");

    private final String id;
    private final Vm vm;
    private final String from;
    private final String to;
    private final MigrateRequest request;
    private final DriverConfig config;
    private final ClusterCalls cluster;
    private final SiteCalls source;
    private final SiteCalls destination;
    private final ScheduledExecutorService renewals;
    /** Null when the VM migrates alone. */
    private final Ensemble ensemble;
    private final ProgressReports reports;
    private final CompletableFuture<MigrationRecord> result = new CompletableFuture<>();
    private final Map<String, Long> epochsBefore = new LinkedHashMap<>();
    /** Per disk, the block bytes the source had pushed and the destination had fetched before the migration. */
    private final Map<String, Traffic> pushedBefore = new LinkedHashMap<>();
    private final Map<String, Traffic> fetchedBefore = new LinkedHashMap<>();
    private final long startedMillis = System.currentTimeMillis();
    private final long startedNanos = System.nanoTime();
    /** Held by each renewal, and to stop them: none runs after {@link #stopRenewing()}, so none prepares again what a rollback cancels. */
    private final Object renewalLock = new Object();
    private boolean renewalsStopped;
    private ScheduledFuture<?> renewing;
    private volatile String cancelledBy;
    private boolean forced;
    /** A member of an ensemble whose disks were handed over and which was told to continue. */
    private boolean continued;
    /** The source's storage backlog to the destination, read at most once a poll period. */
    private long backlogBytes;
    private long backlogReadNanos;
    /** Why {@link #followSource()} or {@link #awaitResume()} gave up. */
    private String stopReason;

    /**
     * @param ensemble the migrations it switches over together with, or null
     * @param reporter where its progress reports to the controller are sent from
     */
    Migration(String id, Vm vm, MigrateRequest request, DriverConfig config, ClusterCalls cluster, SiteCalls source, SiteCalls destination,
            ScheduledExecutorService renewals, Ensemble ensemble, Executor reporter) {
        this.id = requireNonNull(id, "id is null");
        this.vm = requireNonNull(vm, "vm is null");
        this.request = requireNonNull(request, "request is null");
        this.from = vm.getSite();
        this.to = request.getToSite();
        this.config = requireNonNull(config, "config is null");
        this.cluster = requireNonNull(cluster, "cluster is null");
        this.source = requireNonNull(source, "source is null");
        this.destination = requireNonNull(destination, "destination is null");
        this.renewals = requireNonNull(renewals, "renewals is null");
        this.ensemble = ensemble;
        MigrationInFlight identity = MigrationInFlight.newBuilder()
                .setId(id)
                .setFromSite(from)
                .setToSite(to)
                .setStartedEpochMillis(startedMillis)
                .setRequestedBy(requestedBy())
                .setEnsembleId(ensembleId())
                .build();
        this.reports = new ProgressReports(cluster, reporter, identity, progress(MigrationPhase.MIGRATION_PHASE_PREPARING).build());
    }

    public String vmName() {
        return vm.getSpec().getName();
    }

    String fromSite() {
        return from;
    }

    String toSite() {
        return to;
    }

    /** What counts against its source's limit of migrations out: its ensemble, or itself. */
    String group() {
        return ensemble == null ? id : ensemble.id();
    }

    /** Its ensemble's id, empty when it migrates alone. */
    public String ensembleId() {
        return ensemble == null ? "" : ensemble.id();
    }

    public CompletableFuture<MigrationRecord> result() {
        return result;
    }

    /** The progress now (with the result once it ended). */
    public MigrationProgress progress() {
        return reports.last();
    }

    /** Sends {@code watcher} the progress now and every change after, the result last. */
    public void watch(Consumer<MigrationProgress> watcher) {
        reports.watch(watcher);
    }

    public void unwatch(Consumer<MigrationProgress> watcher) {
        reports.unwatch(watcher);
    }

    /**
     * Rolls the migration back unless it is past its commit point; {@link #result()} says which.
     * A member of an ensemble cancels the ensemble.
     */
    void cancel(String by) {
        cancelledBy = by;
        if (ensemble != null) {
            ensemble.fail("cancelled by " + by);
        }
    }

    @Override
    public void run() {
        MigrationRecord record;
        try {
            record = migrate();
        } catch (RuntimeException e) {
            log.error("{}: migration {} to {} failed", vmName(), id, to, e);
            record = record(MigrationOutcome.MIGRATION_OUTCOME_FAILED, HeliotropeException.rootMessage(e)).build();
        }
        reports.stopReporting();
        try {
            cluster.recordMigration(vmName(), record);
        } catch (RuntimeException e) {
            log.warn("{}: cannot record migration {}: {}", vmName(), id, e.getMessage());
        }
        // The progress first: whoever the result wakes reads the progress with it.
        reports.done(progress(MigrationPhase.MIGRATION_PHASE_DONE).setResult(record).build());
        result.complete(record);
    }

    private MigrationRecord migrate() {
        publish(progress(MigrationPhase.MIGRATION_PHASE_PREPARING));
        VmRuntime running = source.runtime(vmName());
        if (!RUNNING.contains(running.getState())) {
            throw new HeliotropeException(ErrorCode.VM_BUSY, "VM '" + vmName() + "' is not running at " + from + " (" + running.getState() + ")");
        }
        for (String disk : disks()) {
            epochsBefore.put(disk, cluster.lease(disk).getEpoch());
            pushedBefore.put(disk, bestEffort(() -> source.traffic(disk), Traffic.NONE, "read the traffic of " + disk + " at " + from));
            fetchedBefore.put(disk, bestEffort(() -> destination.traffic(disk), Traffic.NONE, "read the traffic of " + disk + " at " + to));
        }
        for (String disk : disks()) {
            cluster.prepare(disk, from, to);
        }
        renewing = renewals.scheduleWithFixedDelay(this::renew, config.renewal().toMillis(), config.renewal().toMillis(), TimeUnit.MILLISECONDS);
        try {
            return migratePrepared();
        } finally {
            stopRenewing();
        }
    }

    private MigrationRecord migratePrepared() {
        VmRuntime incoming;
        try {
            for (String disk : disks()) {
                destination.standby(disk, from);
            }
            incoming = destination.startVm(vm.getSpec(), true);
            source.startMigration(StartMigrationRequest.newBuilder()
                    .setName(vmName())
                    .setToSite(to)
                    .setMigrationPort(incoming.getMigrationPort())
                    .setHandoverDeadlineMillis(handoffDeadline().toMillis())
                    .setHold(ensemble != null)
                    .build());
        } catch (RuntimeException e) {
            return rollBack(MigrationOutcome.MIGRATION_OUTCOME_ROLLED_BACK, "could not start: " + HeliotropeException.rootMessage(e));
        }
        log.info("{}: migration {} from {} to {} started (destination migration port {})", vmName(), id, from, to, incoming.getMigrationPort());
        publish(progress(MigrationPhase.MIGRATION_PHASE_PRECOPY));
        MigrationState state = followSource();
        if (state == null) {
            if (ensemble != null && cancelledBy == null) {
                ensemble.fail(vmName() + ": " + stopReason);
            }
            return rollBack(cancelledBy != null ? MigrationOutcome.MIGRATION_OUTCOME_CANCELLED : MigrationOutcome.MIGRATION_OUTCOME_ROLLED_BACK,
                    stopReason);
        }
        stopRenewing();
        MigrationState resumed = awaitResume();
        if (resumed == null) {
            return rollBack(MigrationOutcome.MIGRATION_OUTCOME_ROLLED_BACK, stopReason);
        }
        return finish(state, resumed);
    }

    /** Follows the source until QEMU completed; null (with {@link #stopReason}) when the migration must roll back. */
    private MigrationState followSource() {
        long deadline = request.getTimeoutMillis() == 0 ? Long.MAX_VALUE : startedNanos + TimeUnit.MILLISECONDS.toNanos(request.getTimeoutMillis());
        long silentSince = 0;
        boolean sourceWasSilent = false;
        while (true) {
            if (cancelledBy != null) {
                stopReason = "cancelled by " + cancelledBy;
                return null;
            }
            if (ensemble != null && !continued && ensemble.failure() != null) {
                cancelledBy = "ensemble " + ensemble.id();
                stopReason = ensemble.failure();
                return null;
            }
            MigrationState state;
            try {
                state = source.queryMigration(vmName());
                silentSince = 0;
            } catch (HeliotropeException e) {
                long now = System.nanoTime();
                silentSince = silentSince == 0 ? now : silentSince;
                sourceWasSilent = true;
                if (e.code().kind() != ErrorCode.Kind.RETRYABLE || now - silentSince > config.sourcePatience().toNanos()) {
                    stopReason = "lost the source: " + e.getMessage();
                    return null;
                }
                log.info("{}: the source at {} does not answer ({}); asking again", vmName(), from, e.getMessage());
                pause(config.poll());
                continue;
            }
            if (state.getVmState().equals(EXITED)) {
                stopReason = "the source's QEMU exited" + (state.getError().isEmpty() ? "" : ": " + state.getError());
                return null;
            }
            if (state.getHandover() == HandoverState.HANDOVER_STATE_FAILED) {
                stopReason = "the handoff at pre-switchover failed: " + state.getHandoverError();
                return null;
            }
            switch (state.getStatus()) {
                case "completed" -> {
                    return state;
                }
                case "failed", "cancelled", "cancelling" -> {
                    stopReason = "QEMU's migration " + state.getStatus() + (state.getError().isEmpty() ? "" : ": " + state.getError());
                    return null;
                }
                case "pre-switchover", "device" -> {
                    publish(progress(MigrationPhase.MIGRATION_PHASE_SWITCHOVER, state));
                    boolean parked = !continued && state.getStatus().equals("pre-switchover");
                    if (parked && ensemble != null && !switchOverTogether()) {
                        return null;
                    }
                    // A source runner that restarted at pre-switchover parks: whether its predecessor began the handover, it cannot know.
                    if (parked && ensemble == null && sourceWasSilent && state.getHandover() == HandoverState.HANDOVER_STATE_NONE && !handOverAndContinue()) {
                        return null;
                    }
                }
                default -> publish(progress(MigrationPhase.MIGRATION_PHASE_PRECOPY, state));
            }
            if (System.nanoTime() > deadline && !forced) {
                if (request.getOnTimeout() == OnTimeout.ON_TIMEOUT_CANCEL) {
                    stopReason = "timed out after " + Duration.ofMillis(request.getTimeoutMillis()).toSeconds() + " s";
                    cancelledBy = "timeout";
                    return null;
                }
                log.info("{}: migration {} timed out: pausing the guest so that pre-copy completes", vmName(), id);
                source.pauseVm(vmName());
                forced = true;
            }
            pause(ensemble == null ? config.poll() : config.barrierPoll());
        }
    }

    /**
     * A member parked at {@code pre-switchover}: waits for the others, hands its disks over,
     * waits for theirs, continues. False (with {@link #stopReason}) when it must roll back;
     * {@link #cancelledBy} says whether because of another member.
     */
    private boolean switchOverTogether() {
        String failed = awaitEnsemble(() -> ensemble.awaitParked(vmName()));
        if (failed == null) {
            if (!handOver()) {
                return false;
            }
            failed = awaitEnsemble(() -> ensemble.awaitHandedOver(vmName(), handoffDeadline()));
        }
        if (failed != null) {
            cancelledBy = "ensemble " + ensemble.id();
            stopReason = failed;
            return false;
        }
        return continueMigration();
    }

    /** A migration alone whose source parked: hands over and continues. False (with {@link #stopReason}) when it must roll back. */
    private boolean handOverAndContinue() {
        log.info("{}: the source at {} parked at pre-switchover after a restart: handing over", vmName(), from);
        return handOver() && continueMigration();
    }

    private boolean handOver() {
        MigrationState handed;
        try {
            handed = source.handOver(vmName());
        } catch (HeliotropeException e) {
            handed = MigrationState.newBuilder().setHandover(HandoverState.HANDOVER_STATE_FAILED).setHandoverError(e.getMessage()).build();
        }
        if (handed.getHandover() != HandoverState.HANDOVER_STATE_DONE) {
            stopReason = "the handoff at pre-switchover failed: " + handed.getHandoverError();
            return false;
        }
        return true;
    }

    private boolean continueMigration() {
        continued = true;
        try {
            source.continueMigration(vmName());
        } catch (HeliotropeException e) {
            stopReason = "cannot continue the migration after the handoff: " + e.getMessage();
            return false;
        }
        return true;
    }

    private interface EnsembleWait {
        String await() throws InterruptedException;
    }

    private static String awaitEnsemble(EnsembleWait wait) {
        try {
            return wait.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HeliotropeException(ErrorCode.SHUTTING_DOWN, "the migration driver is stopping");
        }
    }

    /** Waits for the destination's runner to resume the guest; null (with {@link #stopReason}) when it did not in time. */
    private MigrationState awaitResume() {
        long deadline = System.nanoTime() + config.resumeWait().toNanos() + handoffDeadline().toNanos();
        while (System.nanoTime() < deadline) {
            try {
                MigrationState state = destination.queryMigration(vmName());
                if (state.getResumeMicros() != 0) {
                    return state;
                }
                if (state.getVmState().equals(EXITED) || !state.getError().isEmpty()) {
                    stopReason = "the destination did not resume: " + (state.getError().isEmpty() ? "its QEMU exited" : state.getError());
                    return null;
                }
            } catch (HeliotropeException e) {
                log.info("{}: cannot ask the destination whether it resumed yet: {}", vmName(), e.getMessage());
            }
            pause(config.poll());
        }
        stopReason = "the destination did not resume within " + (config.resumeWait().plus(handoffDeadline()).toSeconds()) + " s";
        return null;
    }

    private MigrationRecord finish(MigrationState sourceState, MigrationState destinationState) {
        long totalMicros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - startedNanos);
        long pushed = 0;
        for (String disk : disks()) {
            pushed += bestEffort(() -> source.traffic(disk), pushedBefore.get(disk), "read the traffic of " + disk + " at " + from)
                    .since(pushedBefore.get(disk)).pushedBytes();
        }
        // The source quits while its disks are still held: its last FLUSH is answered, not failed.
        bestEffort(() -> source.stopVm(vmName()), null, "stop the source QEMU at " + from);
        for (String disk : disks()) {
            bestEffort(() -> source.endHold(disk), null, "end the hold of " + disk + " at " + from);
        }
        MigrationRecord.Builder record = record(MigrationOutcome.MIGRATION_OUTCOME_COMPLETED, "")
                .setTotalMicros(totalMicros)
                .setDowntimeMicros(Math.max(0, destinationState.getResumeMicros() - sourceState.getStopMicros()))
                .setHandoffMicros(Math.max(0, sourceState.getDeviceMicros() - sourceState.getPreSwitchoverMicros()))
                .setRamBytes(sourceState.getRamTransferred())
                .setStoragePushedBytes(pushed)
                .setStopEpochMicros(sourceState.getStopMicros())
                .setPreSwitchoverEpochMicros(sourceState.getPreSwitchoverMicros())
                .setDeviceEpochMicros(sourceState.getDeviceMicros())
                .setResumeEpochMicros(destinationState.getResumeMicros());
        long fetched = 0;
        for (String disk : disks()) {
            long epoch = retry(() -> cluster.completeHandoff(disk, from, to), "complete the handoff of " + disk).getEpoch();
            record.addEpochs(DiskEpochs.newBuilder().setImage(disk).setEpochBefore(epochsBefore.get(disk)).setEpochAfter(epoch));
            fetched += bestEffort(() -> destination.traffic(disk), fetchedBefore.get(disk), "read the traffic of " + disk + " at " + to)
                    .since(fetchedBefore.get(disk)).fetchedBytes();
        }
        record.setStorageFetchedBytes(fetched);
        retry(() -> cluster.moveVm(vmName(), to, cluster.vm(vmName()).getVersion()), "record that " + vmName() + " runs at " + to);
        log.info("{}: migration {} from {} to {} completed in {} ms (downtime {} ms, handoff {} ms)", vmName(), id, from, to,
                totalMicros / 1000, record.getDowntimeMicros() / 1000, record.getHandoffMicros() / 1000);
        return record.build();
    }

    /**
     * Undoes the migration unless the destination resumed the guest, which the destination's
     * runner decides: asked to abort, it either had resumed (then the migration completed
     * and is finished as such) or never will. Only then does the lease go back to A; A's held
     * I/O goes on once A has reclaimed it.
     */
    private MigrationRecord rollBack(MigrationOutcome outcome, String reason) {
        log.warn("{}: migration {} to {} rolls back: {}", vmName(), id, to, reason);
        stopRenewing();
        publish(progress(MigrationPhase.MIGRATION_PHASE_ROLLING_BACK));
        boolean resumed = retry(() -> abortIncoming(), "ask " + to + " to abort the incoming VM");
        if (resumed) {
            log.info("{}: the destination had resumed: the migration completed after all", vmName());
            MigrationState sourceState = retry(() -> source.queryMigration(vmName()), "read the source's migration");
            MigrationState destinationState = retry(() -> destination.queryMigration(vmName()), "read the destination's migration");
            return finish(sourceState, destinationState);
        }
        cancelAtSource();
        for (String disk : disks()) {
            bestEffort(() -> destination.abandon(disk), null, "end the standby of " + disk + " at " + to);
        }
        Map<String, Long> epochs = new LinkedHashMap<>();
        for (String disk : disks()) {
            epochs.put(disk, retry(() -> cluster.cancelHandoff(disk, from, to), "move the lease of " + disk + " back to " + from).getEpoch());
        }
        for (String disk : disks()) {
            retry(() -> source.reclaim(disk), "serve " + disk + " at " + from + " again");
        }
        resumeSource();
        MigrationRecord.Builder record = record(outcome, reason).setTotalMicros(TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - startedNanos));
        epochs.forEach((disk, epoch) -> record.addEpochs(DiskEpochs.newBuilder().setImage(disk).setEpochBefore(epochsBefore.get(disk)).setEpochAfter(epoch)));
        return record.build();
    }

    /** Whether the destination had resumed; a destination that never started (or is gone) had not. */
    private boolean abortIncoming() {
        try {
            return destination.abortIncoming(vmName());
        } catch (HeliotropeException e) {
            if (e.code() == ErrorCode.VM_NOT_FOUND) {
                return false;
            }
            throw e;
        }
    }

    private void cancelAtSource() {
        MigrationState state = retry(() -> source.queryMigration(vmName()), "read the source's migration");
        if (IN_FLIGHT.contains(state.getStatus())) {
            retry(() -> source.cancelMigration(vmName()), "cancel the migration at " + from);
        }
    }

    /** QEMU restarts the guest after a failed or cancelled migration by itself; after a completed one, or when forced, it waits. */
    private void resumeSource() {
        long deadline = System.nanoTime() + config.rollbackPatience().toNanos();
        while (true) {
            MigrationState state = retry(() -> source.queryMigration(vmName()), "read the source's migration");
            if (state.getVmState().equals(EXITED)) {
                log.warn("{}: the source's QEMU at {} exited: there is no guest to resume", vmName(), from);
                return;
            }
            if (!IN_FLIGHT.contains(state.getStatus()) && !state.getStatus().equals("cancelling")) {
                if (!state.getVmState().equals("running")) {
                    retry(() -> source.continueVm(vmName()), "resume the guest at " + from);
                }
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "the migration at " + from + " did not end: " + state.getStatus());
            }
            pause(config.poll());
        }
    }

    private void renew() {
        synchronized (renewalLock) {
            if (renewalsStopped) {
                return;
            }
            try {
                for (String disk : disks()) {
                    cluster.prepare(disk, from, to);
                    destination.standby(disk, from);
                }
            } catch (RuntimeException e) {
                log.warn("{}: cannot renew migration {} to {}: {}", vmName(), id, to, e.getMessage());
            }
        }
    }

    /** Waits for a renewal under way; none starts after. */
    private void stopRenewing() {
        synchronized (renewalLock) {
            renewalsStopped = true;
        }
        if (renewing != null) {
            renewing.cancel(false);
        }
    }

    /** Retries a call that must succeed for the migration to end cleanly, for up to the rollback patience. */
    private <T> T retry(Supplier<T> call, String what) {
        long deadline = System.nanoTime() + config.rollbackPatience().toNanos();
        long backoff = 100;
        while (true) {
            try {
                return call.get();
            } catch (HeliotropeException e) {
                if (e.code().kind() != ErrorCode.Kind.RETRYABLE || System.nanoTime() > deadline) {
                    throw new HeliotropeException(e.code(), "cannot " + what + ": " + e.getMessage(), e);
                }
                log.info("{}: cannot {} yet ({}); trying again", vmName(), what, e.getMessage());
            }
            pause(Duration.ofMillis(backoff));
            backoff = Math.min(2000, backoff * 2);
        }
    }

    private <T> T bestEffort(Supplier<T> call, T otherwise, String what) {
        try {
            return call.get();
        } catch (HeliotropeException e) {
            log.warn("{}: cannot {}: {}", vmName(), what, e.getMessage());
            return otherwise;
        }
    }

    private Duration handoffDeadline() {
        return request.getHandoffDeadlineMillis() == 0 ? config.handoffDeadline() : Duration.ofMillis(request.getHandoffDeadlineMillis());
    }

    private List<String> disks() {
        return vm.getSpec().getDisksList();
    }

    private MigrationRecord.Builder record(MigrationOutcome outcome, String reason) {
        return MigrationRecord.newBuilder()
                .setId(id)
                .setFromSite(from)
                .setToSite(to)
                .setOutcome(outcome)
                .setReason(reason)
                .setRequestedBy(requestedBy())
                .setEnsembleId(ensembleId())
                .setStartedEpochMillis(startedMillis);
    }

    private String requestedBy() {
        return request.getRequestedBy().isEmpty() ? "operator" : request.getRequestedBy();
    }

    private MigrationProgress.Builder progress(MigrationPhase phase) {
        return MigrationProgress.newBuilder()
                .setId(id)
                .setVm(vmName())
                .setFromSite(from)
                .setToSite(to)
                .setPhase(phase)
                .setElapsedMillis(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos));
    }

    private MigrationProgress.Builder progress(MigrationPhase phase, MigrationState state) {
        long now = System.nanoTime();
        if (backlogReadNanos == 0 || now - backlogReadNanos >= config.poll().toNanos()) {
            long blocks = 0;
            for (String disk : disks()) {
                blocks += bestEffort(() -> source.handoff(disk).getBacklogBlocks(), 0L, "read the backlog of " + disk);
            }
            backlogBytes = blocks * 4096;
            backlogReadNanos = now;
        }
        double rate = state.getRamRate();
        return progress(phase)
                .setRamTotal(state.getRamTotal())
                .setRamRemaining(state.getRamRemaining())
                .setStorageBacklogBytes(backlogBytes)
                .setRate(rate)
                .setTimeLeftMillis(rate > 0 ? (long) (state.getRamRemaining() * 1000 / rate) : 0);
    }

    private void publish(MigrationProgress.Builder progress) {
        reports.publish(progress.build());
    }

    /** Between two reads of a migration's progress (a poll period or a retry's backoff), not a wait for a state. */
    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HeliotropeException(ErrorCode.SHUTTING_DOWN, "the migration driver is stopping");
        }
    }
}
