package io.heliotrope.storage.session;

import io.heliotrope.storage.session.Controller.LeaseState;
import io.heliotrope.storage.view.ViewCache;
import io.heliotrope.storage.view.StaleBlocks;
import io.heliotrope.storage.view.SessionWrites;
import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.storage.view.IoGate;
import io.heliotrope.version.Version;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.Objects.requireNonNull;

/**
 * A write session under the controller's lease. Reads and writes never wait on the
 * controller: the lease is renewed and dirty blocks are checkpointed in the background.
 * The session refuses all I/O once fenced (the lease moved on) and also once its lease
 * may have expired without a renewal, since another site may hold the image by then;
 * what it had not flushed is then orphaned.
 *
 * <p>Its holding starts at the epoch the lease was granted at, and {@link #nextEpoch()}
 * advances the lease to the next epoch of the same holding. It flushes the dirty blocks of
 * every epoch of its holding, always under the current one, and only those: others belong
 * to an earlier session and go through recovery. An advance never overlaps a flush (the
 * controller refuses a flush under the epoch the advance leaves), and renewals and
 * advances go one at a time. An advance whose reply was lost leaves the epoch in doubt
 * until the next renewal or flush repeats it, which the controller answers with the epoch
 * the first attempt took. A handoff rolled back before its move advances the holding too
 * (to fence a final flush still on its way): a renewal or flush refused for it follows the
 * holding to that epoch instead of being fenced ({@link #followedRollback()}).
 *
 * <p>Its flushes take the blocks from its {@link SessionWrites}, chosen at open: this
 * site's dirty set, held here, or a {@code remote} session's own writes, held at the home.
 *
 * <p>When no renewal has reached a controller by a tenth of the TTL before the lease may
 * lapse (ZooKeeper's quorum or every controller out of reach), the session pauses its
 * {@link IoGate}: reads and writes wait, neither served nor failed, while renewals go on.
 * A renewal that then succeeds (the controller renews a lapsed lease that nobody took)
 * resumes them; after {@code leaseHold} without one, they go on to fail with EIO until one does.
 */
final class ControllerSession implements ImageSession {
    private static final Logger log = LoggerFactory.getLogger(ControllerSession.class);

    interface Orphans {
        void orphan(ImageInfo image, List<BlockVersion> blocks, String reason);
    }

    private final ImageInfo info;
    private final long grantEpoch;
    private volatile long epoch;
    private final long ttlNanos;
    private final long renewNanos;
    private final BlockStore store;
    private final ViewCache view;
    private final SessionWrites writes;
    private final Controller controller;
    private final Orphans orphans;
    private final ScheduledExecutorService scheduler;
    /** Blocks whose local copy is not the committed version, with that version. */
    private final ConcurrentSkipListMap<Long, GlobalBlock> stale = new ConcurrentSkipListMap<>();
    /** How many of the stale entries are not zero markers: blocks current only at another site. */
    private final AtomicLong elsewhere = new AtomicLong();
    private final AtomicLong writtenSinceCheckpoint = new AtomicLong();
    private final AtomicBoolean checkpointQueued = new AtomicBoolean();
    private final Object flushLock = new Object();
    /** Held for each renewal and advance, so that none sends an epoch another is leaving. */
    private final Object leaseLock = new Object();
    /** An advance failed without an answer: the lease may be at the next epoch already. Guarded by leaseLock. */
    private boolean advanceInDoubt;
    private final ScheduledFuture<?> renewal;
    /** Until when (System.nanoTime) the lease is surely ours: the last renewal's send time plus most of the TTL. */
    private volatile long validUntilNanos;
    private volatile String fenced;
    private final IoGate gate;
    private final long holdNanos;
    /** Guards the fields below. */
    private final Object pauseLock = new Object();
    /** Whether this session paused the gate because its lease may lapse. Guarded by pauseLock. */
    private boolean pausedForLapse;
    /** How many times it did. Guarded by pauseLock. */
    private long pauses;
    /**
     * What pauses the gate when the lease may lapse, what ends a hold, and a renewal repeated
     * during one: replaced as renewals come, cancelled with the renewals (one-shot tasks left
     * in the scheduler would hold its shutdown up). Guarded by pauseLock.
     */
    private ScheduledFuture<?> lapseWatch;
    private ScheduledFuture<?> holdEnd;
    private ScheduledFuture<?> retry;
    /** The validUntilNanos whose lapse was last logged. */
    private volatile long lapseLogged;
    private boolean closed;
    private long checkpointBlocks = Long.MAX_VALUE;
    private ScheduledFuture<?> checkpoints;

    /**
     * Starts renewing the lease granted at {@code grantedAtNanos} (when the open was sent)
     * every third of its TTL, counted from the grant: an open that took longer than that
     * (it waited for another site's lease, or for a slow controller) renews at once. The
     * holding was granted at {@code grantEpoch} and is at {@code epoch} now. Its reads and writes
     * pass {@code gate}, which it pauses for at most {@code leaseHold} when its lease may lapse.
     */
    ControllerSession(ImageInfo info, long grantEpoch, long epoch, Duration ttl, long grantedAtNanos, BlockStore store, ViewCache view,
            SessionWrites writes, Controller controller, Orphans orphans, ScheduledExecutorService scheduler, IoGate gate, Duration leaseHold) {
        this.info = requireNonNull(info, "info is null");
        this.grantEpoch = grantEpoch;
        this.epoch = epoch;
        this.ttlNanos = ttl.toNanos();
        this.store = requireNonNull(store, "store is null");
        this.view = requireNonNull(view, "view is null");
        this.writes = requireNonNull(writes, "writes is null");
        this.controller = requireNonNull(controller, "controller is null");
        this.orphans = requireNonNull(orphans, "orphans is null");
        this.scheduler = requireNonNull(scheduler, "scheduler is null");
        this.gate = requireNonNull(gate, "gate is null");
        this.holdNanos = leaseHold.toNanos();
        this.renewNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1), ttlNanos / 3);
        long firstRenewal = Math.max(0, grantedAtNanos + renewNanos - System.nanoTime());
        renewal = scheduler.scheduleWithFixedDelay(this::renew, firstRenewal, renewNanos, TimeUnit.NANOSECONDS);
        validFrom(grantedAtNanos);
    }

    /** The gate this session's reads and writes pass. */
    @Override
    public IoGate gate() {
        return gate;
    }

    /**
     * Finds the stale blocks (the view must be synced), then starts checkpointing; renews the
     * lease now if the last renewal (or the grant) was sent a renewal interval ago or more.
     * The client that opened the image writes at once, and the session must not refuse it
     * for a lease it could renew: with the first renewal a third of the TTL after the open
     * ended, a 3 s lease whose open took 1.4 s refused I/O from 2.4 s after the grant until
     * that renewal's answer. In SyncRecoveryIT, its processes held to a third of a CPU, opens
     * took up to 1.1 s at site-a and 2.4 s at site-b (which waits for the dead holder's
     * lease), and a controller stalled for 2.5 s in site-a's open failed its write with EIO.
     */
    void activate(Duration checkpointInterval, long checkpointBlocks) {
        StaleBlocks.find(store, view, info.id(), entry -> {
            stale.put(entry.block(), entry);
            if (!entry.zero()) {
                elsewhere.incrementAndGet();
            }
        });
        this.checkpointBlocks = checkpointBlocks;
        long checkpointMillis = checkpointInterval.toMillis();
        checkpoints = scheduler.scheduleWithFixedDelay(this::checkpoint, checkpointMillis, checkpointMillis, TimeUnit.MILLISECONDS);
        if (System.nanoTime() - (validUntilNanos - ttlNanos * 4 / 5) >= renewNanos) {
            renew();
        }
    }

    int staleCount() {
        return stale.size();
    }

    @Override
    public ImageInfo info() {
        return info;
    }

    @Override
    public long holdingEpoch() {
        return grantEpoch;
    }

    @Override
    public long epoch() {
        return epoch;
    }

    /** Waits for a running flush, so that it does not go out under the epoch the lease leaves. */
    @Override
    public long nextEpoch() {
        synchronized (flushLock) {
            if (closed) {
                throw new HeliotropeException(ErrorCode.STALE_LEASE, "image '" + info.name() + "': its write session has ended");
            }
            synchronized (leaseLock) {
                return advance("the version counter nears its limit");
            }
        }
    }

    /**
     * At a reclaim after a rollback: follows the holding to the next epoch if the rollback
     * came before the move and advanced it ({@link #followedRollback()}); returns the epoch.
     */
    long reclaimed() {
        synchronized (leaseLock) {
            if (fenced == null) {
                followedRollback();
            }
            return epoch;
        }
    }

    /**
     * After a refusal: whether the session may go on because the lease is at the next epoch of
     * this holding, as a handoff rolled back before its move leaves it, and the session now
     * follows it there (the controller's advance answers that epoch as it is, renewed, or
     * refuses unless this site holds it). The versions written under earlier epochs of the
     * holding stay the session's own to flush. When the lease cannot be read, the next
     * renewal repeats the advance, which settles it either way.
     */
    private boolean followedRollback() {
        synchronized (leaseLock) {
            try {
                LeaseState lease = controller.lease(info.name());
                if (lease.epoch() != epoch + 1 || lease.grantEpoch() > epoch) {
                    return false;
                }
            } catch (HeliotropeException e) {
                if (refused(e)) {
                    return false;
                }
                advanceInDoubt = true;
                return true;
            }
            try {
                advance("a handoff was rolled back before the lease moved");
                return true;
            } catch (HeliotropeException e) {
                return !refused(e);
            }
        }
    }

    /** Takes the next epoch, or learns the one an advance in doubt took; holding leaseLock. */
    private long advance(String why) {
        long from = epoch;
        long sentAt = System.nanoTime();
        advanceInDoubt = true;
        try {
            epoch = controller.advance(info.name(), from);
        } catch (HeliotropeException e) {
            if (refused(e)) {
                advanceInDoubt = false;
                fence(e.getMessage());
            }
            throw e;
        }
        advanceInDoubt = false;
        validFrom(sentAt);
        log.info("{}: write lease advanced from epoch {} to {}: {}", info.name(), from, epoch, why);
        return epoch;
    }

    @Override
    public void checkCurrent() {
        String reason = fenced;
        long validUntil = validUntilNanos;
        if (reason == null && System.nanoTime() - validUntil > 0) {
            reason = "no renewal reached the controller in time, so the lease may have expired";
            if (lapseLogged != validUntil) {
                // Once per lapse: the clients only see EIO, which the NBD server logs at debug level.
                lapseLogged = validUntil;
                log.warn("{}: refusing I/O until a renewal reaches the controller (epoch {}): {}", info.name(), epoch, reason);
            }
        }
        if (reason != null) {
            throw new HeliotropeException(ErrorCode.STALE_LEASE, "image '" + info.name() + "' lost its write lease (epoch " + epoch + "): " + reason);
        }
    }

    @Override
    public SortedMap<Long, GlobalBlock> stale(long first, long count) {
        return StaleBlocks.copyOf(stale, first, count);
    }

    @Override
    public GlobalBlock staleEntry(long block) {
        return stale.get(block);
    }

    @Override
    public long elsewhereBlocks() {
        return elsewhere.get();
    }

    @Override
    public void wrote(long first, long count) {
        if (!stale.isEmpty()) {
            // Entry by entry, so that the count of blocks elsewhere loses each one once, whatever a fetch does meanwhile.
            stale.subMap(first, first + count).values().forEach(this::removeStale);
        }
        if (writtenSinceCheckpoint.addAndGet(count) >= checkpointBlocks && checkpointQueued.compareAndSet(false, true)) {
            scheduler.execute(this::checkpoint);
        }
    }

    @Override
    public long unflushedBlocks() {
        return ownDirty().size();
    }

    @Override
    public void fetched(GlobalBlock block) {
        removeStale(block);
    }

    private void removeStale(GlobalBlock entry) {
        if (stale.remove(entry.block(), entry) && !entry.zero()) {
            elsewhere.decrementAndGet();
        }
    }

    /** On the scheduler, since the controller call blocks; under any epoch of the holding, which the controller accepts. */
    @Override
    public CompletableFuture<Void> recordSyncSites(Set<String> sites) {
        return BoundedExecutors.supplyAsync(() -> {
            checkCurrent();
            controller.recordSyncSites(info.name(), epoch, sites);
            log.info("{}: sync copies go to sites {} (epoch {})", info.name(), new TreeSet<>(sites), epoch);
            return null;
        }, scheduler, "image '" + info.name() + "'");
    }

    /** Renews the lease now, on the scheduler, beside the periodic renewals: the controller in use stopped answering. */
    void renewSoon() {
        if (fenced == null && !renewal.isDone()) {
            try {
                scheduler.execute(this::renew);
            } catch (RejectedExecutionException e) {
                log.debug("{}: no renewal now, the site is stopping: {}", info.name(), e.getMessage());
            }
        }
    }

    private void renew() {
        if (fenced != null) {
            return;
        }
        synchronized (leaseLock) {
            long sentAt = System.nanoTime();
            try {
                if (advanceInDoubt) {
                    advance("an advance whose answer was lost, repeated");
                } else {
                    controller.renew(info.name(), epoch);
                    validFrom(sentAt);
                }
            } catch (HeliotropeException e) {
                if (refused(e) && !followedRollback()) {
                    fence(e.getMessage());
                } else if (!refused(e)) {
                    // Once a hold began, it said why; the renewals then repeat every tenth of the TTL.
                    if (held()) {
                        log.debug("{}: cannot renew the write lease (epoch {}): {}", info.name(), epoch, e.getMessage());
                    } else {
                        log.warn("{}: cannot renew the write lease (epoch {}): {}", info.name(), epoch, e.getMessage());
                    }
                    retryWhileHeld();
                }
            } catch (RuntimeException e) {
                log.error("{}: renewing the write lease (epoch {}) failed", info.name(), epoch, e);
            }
        }
    }

    /** Sends the dirty blocks to the controller, keeping the lease. */
    void checkpoint() {
        checkpointQueued.set(false);
        synchronized (flushLock) {
            if (closed || fenced != null) {
                return;
            }
            writtenSinceCheckpoint.set(0);
            try {
                flush(false);
            } catch (RuntimeException e) {
                if (held()) {
                    log.debug("{}: checkpoint failed, will retry: {}", info.name(), e.getMessage());
                } else {
                    log.warn("{}: checkpoint failed, will retry: {}", info.name(), e.getMessage());
                }
            }
        }
    }

    /**
     * The final flush of a handoff (DESIGN.md section 4, step 4): renewals and checkpoints
     * stop, and the blocks left go to the controller with the lease, moved to {@code toSite}
     * at the next epoch in one transaction. A failed or unanswered flush is settled by reading
     * the lease until {@code deadlineNanos} (System.nanoTime): moved, it succeeded; still this
     * site's at this epoch, it is sent again. Fails with {@code PEER_UNAVAILABLE} when the
     * outcome is still unknown at the deadline, and with {@code STALE_LEASE} when the lease
     * went elsewhere; either way the session serves nothing more. May be called again after a
     * failure, to settle it.
     */
    Handed handOver(String site, String toSite, long deadlineNanos) {
        if (checkpoints != null) {
            checkpoints.cancel(false);
        }
        stopRenewing();
        synchronized (flushLock) {
            closed = true;
            List<BlockVersion> dirty = ownDirty();
            while (true) {
                long left = deadlineNanos - System.nanoTime();
                HeliotropeException failure;
                try {
                    synchronized (leaseLock) {
                        if (advanceInDoubt) {
                            advance("an advance whose answer was lost, repeated");
                        }
                    }
                    long metaSeq = controller.handOver(info.name(), epoch, dirty, writes.holder(), toSite, Duration.ofNanos(Math.max(1, left)));
                    writes.committed(metaSeq, dirty);
                    log.info("{}: lease handed over to {} (epoch {}) with {} blocks (metaSeq {})", info.name(), toSite, epoch + 1, dirty.size(), metaSeq);
                    return new Handed(epoch + 1, metaSeq);
                } catch (HeliotropeException e) {
                    failure = e;
                }
                LeaseState lease = settle(deadlineNanos);
                if (lease == null) {
                    throw new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "image '" + info.name() + "': whether the lease moved to " + toSite
                            + " is still unknown (the controller did not answer): " + failure.getMessage(), failure);
                }
                if (lease.holder().equals(toSite) && lease.grantEpoch() == epoch + 1) {
                    store.markFlushed(info.id(), dirty);
                    log.info("{}: lease handed over to {} (epoch {}), as the lease shows after a lost reply", info.name(), toSite, epoch + 1);
                    return new Handed(epoch + 1, 0);
                }
                if (!lease.heldAt(site, epoch)) {
                    fence(failure.getMessage());
                    throw new HeliotropeException(ErrorCode.STALE_LEASE, "image '" + info.name() + "': the lease did not move to " + toSite
                            + " and is no longer this site's (held by '" + lease.holder() + "' at epoch " + lease.epoch() + ")", failure);
                }
                if (failure.code() != ErrorCode.PEER_UNAVAILABLE || System.nanoTime() - deadlineNanos >= 0) {
                    throw failure;
                }
            }
        }
    }

    /** The lease, read again and again until the deadline; null when the controller never answered. */
    private LeaseState settle(long deadlineNanos) {
        while (true) {
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            try {
                return controller.lease(info.name(), Duration.ofNanos(left));
            } catch (HeliotropeException e) {
                log.debug("{}: cannot read the lease yet: {}", info.name(), e.getMessage());
            }
        }
    }

    /**
     * Ends the session without a flush or a release: a handoff was rolled back, and its lease is
     * someone else's. What it wrote and never flushed is orphaned.
     */
    void drop(String reason) {
        if (checkpoints != null) {
            checkpoints.cancel(false);
        }
        stopRenewing();
        synchronized (flushLock) {
            if (!closed) {
                closed = true;
                List<BlockVersion> dirty = ownDirty();
                if (!dirty.isEmpty()) {
                    orphans.orphan(info, dirty, reason);
                }
            }
        }
    }

    /** Gives the lease up without flushing: the session never served anything. */
    void abandon() {
        stopRenewing();
        synchronized (flushLock) {
            closed = true;
            flush(true);
        }
    }

    @Override
    public void close() {
        if (checkpoints != null) {
            checkpoints.cancel(false);
        }
        try {
            synchronized (flushLock) {
                closed = true;
                if (fenced != null) {
                    orphans.orphan(info, ownDirty(), fenced);
                    return;
                }
                flush(true);
            }
        } finally {
            // Only now: a long final flush must not outlive the lease.
            stopRenewing();
        }
    }

    /** The dirty blocks of this session's holding, from its grant to its current epoch. */
    private List<BlockVersion> ownDirty() {
        long last = epoch;
        return writes.unflushed().stream().filter(block -> {
            long written = Version.epochOf(block.version());
            return written >= grantEpoch && written <= last;
        }).toList();
    }

    private void flush(boolean release) {
        List<BlockVersion> dirty = ownDirty();
        if (dirty.isEmpty() && !release) {
            return;
        }
        long sentAt = System.nanoTime();
        long sentEpoch = epoch;
        try {
            synchronized (leaseLock) {
                if (advanceInDoubt) {
                    advance("an advance whose answer was lost, repeated");
                }
                sentEpoch = epoch;
            }
            long metaSeq = controller.flush(info.name(), sentEpoch, dirty, writes.holder(), release);
            validFrom(sentAt);
            writes.committed(metaSeq, dirty);
            log.debug("{}: flushed {} blocks (metaSeq {}{})", info.name(), dirty.size(), metaSeq, release ? ", lease released" : "");
        } catch (HeliotropeException e) {
            if (!refused(e)) {
                throw e;
            }
            if (epoch != sentEpoch || followedRollback()) {
                // Sent under an epoch the holding has left: the blocks go again under the one it is at.
                flush(release);
                return;
            }
            fence(e.getMessage());
            orphans.orphan(info, dirty, e.getMessage());
        }
    }

    /** Whether the controller refused the lease (rather than failed to answer): the session is fenced. */
    static boolean refused(HeliotropeException e) {
        return e.code() == ErrorCode.STALE_LEASE || e.code() == ErrorCode.IMAGE_NOT_FOUND;
    }

    private void fence(String reason) {
        if (fenced == null) {
            fenced = reason;
            log.warn("{}: fenced at epoch {}; refusing I/O from now on: {}", info.name(), epoch, reason);
            unpause();
        }
    }

    /**
     * The lease is surely this site's until 4/5 of the TTL after {@code sentAt}, when the call
     * that renewed it was sent: the controller counts the TTL from when it renewed it, later.
     * Held reads and writes go on; a watch pauses them a tenth of the TTL before that ends,
     * unless another renewal comes first.
     */
    private void validFrom(long sentAt) {
        long until = sentAt + ttlNanos * 4 / 5;
        long pauseAt = until - ttlNanos / 10;
        boolean resumed;
        synchronized (pauseLock) {
            // With the check in pauseIfLapsing, in one step: a watch of the validity this replaces cannot pause after it.
            validUntilNanos = until;
            // A renewal that took so long that its validity is nearly over already keeps them held: the next one resumes them.
            resumed = pausedForLapse && pauseAt - System.nanoTime() > 0;
            if (resumed) {
                pausedForLapse = false;
                cancel(holdEnd);
            }
            cancel(lapseWatch);
            lapseWatch = renewal.isCancelled() ? null
                    : schedule(() -> pauseIfLapsing(until), Math.max(0, pauseAt - System.nanoTime()), "lapse watch");
        }
        if (resumed) {
            gate.resume();
            log.info("{}: lease renewed (epoch {}): serving the held reads and writes", info.name(), epoch);
        }
    }

    /** Stops the renewals, and the tasks that watch them. */
    private void stopRenewing() {
        renewal.cancel(false);
        synchronized (pauseLock) {
            cancel(lapseWatch);
            cancel(holdEnd);
            cancel(retry);
        }
    }

    private static void cancel(ScheduledFuture<?> task) {
        if (task != null) {
            task.cancel(false);
        }
    }

    /** {@code task} on the scheduler in {@code delayNanos}; null when the site is stopping. */
    private ScheduledFuture<?> schedule(Runnable task, long delayNanos, String what) {
        try {
            return scheduler.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            log.debug("{}: no {}, the site is stopping: {}", info.name(), what, e.getMessage());
            return null;
        }
    }

    /** Pauses the gate if no renewal came since the one that made the lease valid {@code until}, and the session still serves. */
    private void pauseIfLapsing(long until) {
        long pause;
        synchronized (pauseLock) {
            if (validUntilNanos != until || fenced != null || renewal.isCancelled() || pausedForLapse) {
                return;
            }
            pausedForLapse = true;
            pause = ++pauses;
            gate.pause();
            holdEnd = schedule(() -> endHold(pause), holdNanos, "end to the hold");
        }
        log.warn("{}: holding reads and writes (epoch {}): no renewal reached a controller for {} ms, and the lease may lapse; "
                + "held up to {} ms while renewals go on", info.name(), epoch, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - until + ttlNanos * 4 / 5),
                TimeUnit.NANOSECONDS.toMillis(holdNanos));
        renewSoon();
    }

    private boolean held() {
        synchronized (pauseLock) {
            return pausedForLapse;
        }
    }

    /** While reads and writes are held, renews again a tenth of the TTL after a renewal failed, not a third: they go on the sooner. */
    private void retryWhileHeld() {
        synchronized (pauseLock) {
            if (pausedForLapse && (retry == null || retry.isDone()) && !renewal.isCancelled()) {
                retry = schedule(this::renewSoon, ttlNanos / 10, "renewal soon");
            }
        }
    }

    /** The hold ran out with no renewal: the held and later reads and writes go on, and fail (checkCurrent) until a renewal comes. */
    private void endHold(long pause) {
        synchronized (pauseLock) {
            if (!pausedForLapse || pauses != pause) {
                return;
            }
            pausedForLapse = false;
            cancel(retry);
        }
        gate.resume();
        log.warn("{}: no renewal reached a controller within the hold of {} ms: reads and writes fail (EIO) until one does",
                info.name(), TimeUnit.NANOSECONDS.toMillis(holdNanos));
    }

    /** Resumes the gate if this session paused it: a fenced session fails what waits there. */
    private void unpause() {
        synchronized (pauseLock) {
            if (!pausedForLapse) {
                return;
            }
            pausedForLapse = false;
        }
        gate.resume();
    }
}
