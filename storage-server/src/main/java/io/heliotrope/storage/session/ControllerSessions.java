package io.heliotrope.storage.session;

import io.heliotrope.storage.view.ViewCache;
import io.heliotrope.storage.view.StaleBlocks;
import io.heliotrope.storage.view.SessionWrites;
import io.heliotrope.storage.view.RemoteWrites;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.ListedExport;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.Dirty;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.LocalCopies;
import io.heliotrope.storage.Replication;
import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.storage.view.IoGate;
import io.heliotrope.storage.image.ImageSessions;
import io.heliotrope.version.Version;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * Sessions of a site that a controller coordinates: opening an image takes its write
 * lease and syncs the global metadata; writes stay local and are checkpointed to the
 * controller in the background; the last close flushes the rest and gives the lease up.
 * Opens, closes and recoveries of one image take turns, so a new open starts after the
 * last close has released the lease; those of other images never wait for them.
 *
 * <p>A local copy is of one controller image, its identity ({@link ImageInfo#identity()}):
 * the name only finds it. A copy whose identity is not the one the catalog has under its
 * name is of a removed image. Opening the name drops it and starts a new copy, and the
 * catalog refresh drops it unless the image is open here (then a refresh after the close
 * does); what was written to it and never flushed goes with it, since it belongs to the
 * removed image. A copy from before identities has none and is dropped the same way.
 */
public final class ControllerSessions implements ImageSessions {
    private static final Logger log = LoggerFactory.getLogger(ControllerSessions.class);

    private final String site;
    private final BlockStore store;
    private final LocalCopies copies;
    private final ViewCache view;
    private final Controller controller;
    private final HoldingRecovery recovery;
    private final ScheduledExecutorService scheduler;
    private final Duration checkpointInterval;
    private final long checkpointBlocks;
    private final Duration leaseHold;
    private final AtomicLong orphanedBlocks = new AtomicLong();
    /** Images with a session open here. */
    private final Set<String> active = ConcurrentHashMap.newKeySet();
    /**
     * Images whose session is starting here: from before the stale blocks are found, a copy
     * pushed by another site could take the place of one found current.
     */
    private final Set<String> opening = ConcurrentHashMap.newKeySet();
    /** The sessions open here (active, in standby or held), by image. */
    private final Map<String, HandoffSession> sessions = new ConcurrentHashMap<>();
    /** Images in standby here for a handoff from the site named: opens of them are served in standby. */
    private final Map<String, String> standbys = new ConcurrentHashMap<>();
    /** Images whose last session ended without a final flush (no controller answered): their blocks go at the next refresh that finds one. */
    private final Set<String> leftovers = ConcurrentHashMap.newKeySet();
    /** Per image, the turn of its last open, close or recovery; it completes when that ends. */
    private final Map<String, CompletableFuture<Void>> turns = new ConcurrentHashMap<>();
    private final CatalogExports exports;

    /**
     * @param recovery settles what an open owes for a dead sync holding before the image is served
     * @param scheduler runs lease renewals, checkpoints and catalog refreshes; its owner closes it
     * @param checkpointInterval how often dirty blocks go to the controller while an image is open
     * @param checkpointBlocks how many blocks written since the last checkpoint start one early
     * @param leaseHold how long a session holds reads and writes when its lease may lapse (no renewal reached a controller)
     *     before it fails them
     */
    public ControllerSessions(String site, BlockStore store, ViewCache view, Controller controller, HoldingRecovery recovery,
            ScheduledExecutorService scheduler, Duration checkpointInterval, long checkpointBlocks, Duration leaseHold) {
        this.site = requireNonNull(site, "site is null");
        this.store = requireNonNull(store, "store is null");
        this.copies = new LocalCopies(store);
        this.view = requireNonNull(view, "view is null");
        this.controller = requireNonNull(controller, "controller is null");
        this.recovery = requireNonNull(recovery, "recovery is null");
        this.scheduler = requireNonNull(scheduler, "scheduler is null");
        this.checkpointInterval = requireNonNull(checkpointInterval, "checkpointInterval is null");
        this.checkpointBlocks = checkpointBlocks;
        this.leaseHold = requireNonNull(leaseHold, "leaseHold is null");
        this.exports = new CatalogExports(site, controller);
        controller.whenUnanswered(this::renewNow);
    }

    /** Renews every lease held here now, on the scheduler: the controller in use stopped answering, and another one should hear of them at once. */
    private void renewNow() {
        sessions.values().forEach(HandoffSession::renewSoon);
    }

    /** Adds this site to the controller's registry with the addresses it serves on. */
    public void register(String grpcAddress, String nbdAddress) {
        controller.register(grpcAddress, nbdAddress);
    }

    /**
     * Flushes what earlier runs of this site wrote but never flushed, as long as the lease
     * they wrote under is still this site's: the blocks of every epoch of the current
     * holding (from its grant to now, {@link Controller.LeaseState#heldAt}) go in one flush
     * under its current epoch. Blocks of any other epoch are of a fenced lease: another
     * site, or a new grant, held the image after them. They are reported and dropped from
     * the dirty set (the synced view then marks them stale, so they are never served).
     * Images open here are skipped: their dirty blocks are their sessions'.
     */
    public void recover() {
        for (ImageInfo image : store.listImages()) {
            inTurn(image.name(), () -> {
                if (!active.contains(image.name())) {
                    recover(image);
                }
                return null;
            });
        }
        refresh();
    }

    /** Recovers the copy's leftovers into its image, or drops the copy when that image was removed. */
    private void recover(ImageInfo image) {
        List<BlockVersion> left = store.dirtyBlocks(image.id());
        if (left.isEmpty()) {
            return;
        }
        try {
            UUID identity = controller.images().get(image.name());
            if (!image.isCopyOf(identity)) {
                copies.drop(image, identity);
                return;
            }
            Controller.LeaseState lease = controller.lease(image.name());
            Map<Boolean, List<BlockVersion>> held = left.stream()
                    .collect(Collectors.partitioningBy(block -> lease.heldAt(site, Version.epochOf(block.version()))));
            if (!held.get(false).isEmpty()) {
                orphan(image, held.get(false), "their lease was fenced: the lease " + (lease.holder().isEmpty()
                        ? "was released at epoch " + lease.epoch() : "is held by site " + lease.holder() + " since epoch " + lease.grantEpoch()));
            }
            left = held.get(true);
            if (!left.isEmpty()) {
                long metaSeq = controller.flush(image.name(), lease.epoch(), left, site, true);
                StaleBlocks.committed(store, view, image.id(), site, metaSeq, left);
                log.info("{}: flushed {} blocks left over from epochs {} to {}", image.name(), left.size(), lease.grantEpoch(), lease.epoch());
            }
        } catch (HeliotropeException e) {
            if (!ControllerSession.refused(e)) {
                throw e;
            }
            orphan(image, left, e.getMessage());
        }
    }

    /**
     * Drops the copies of removed images. A copy in its image's turn (being opened or
     * closed) or open here is left for a later refresh.
     */
    public void refresh() {
        flushLeftovers();
        // Listed before the catalog is read: a copy made after the read would look removed.
        List<ImageInfo> here = store.listImages();
        Map<String, UUID> catalog;
        try {
            catalog = controller.images();
        } catch (HeliotropeException e) {
            log.warn("site {}: cannot refresh the image list: {}", site, e.getMessage());
            return;
        }
        for (ImageInfo copy : here) {
            UUID identity = catalog.get(copy.name());
            if (!copy.isCopyOf(identity)) {
                ifIdle(copy.name(), () -> {
                    ImageInfo current = copies.find(copy.name());
                    if (!active.contains(copy.name()) && current != null && current.id() == copy.id()) {
                        try {
                            copies.drop(copy, identity);
                        } catch (HeliotropeException e) {
                            log.warn("{}: cannot drop the local copy of a removed image: {}", copy.name(), e.getMessage());
                        }
                    }
                });
            }
        }
    }

    /** Every image of the controller's catalog that this site can serve, as the controller has it now. */
    @Override
    public CompletableFuture<List<ListedExport>> list() {
        return exports.list();
    }

    /** As the catalog has it: the controller's answer, without taking the lease. */
    @Override
    public CompletableFuture<Long> sizeBytes(String name) {
        return exports.sizeBytes(name);
    }

    /**
     * Any name: the catalog is the controller's, which cannot be asked from memory, so the
     * open decides (a client that selects a metadata context of an image created a moment
     * ago must get one).
     */
    @Override
    public boolean mayExist(String name) {
        return true;
    }

    /** Dirty until flushed to the controller. */
    @Override
    public Dirty dirty() {
        return Dirty.RECORD;
    }

    /** Takes the lease, syncs the view, recovers a dead holding's sync copies, finds the stale blocks; in its image's turn, so recovery never flushes a live session's blocks. */
    @Override
    public ImageSession open(String name) {
        return inTurn(name, () -> {
            String from = standbys.get(name);
            return from == null ? start(name) : startStandby(name, from);
        });
    }

    private ImageSession start(String name) {
        try {
            return started(name);
        } finally {
            opening.remove(name);
        }
    }

    private ImageSession started(String name) {
        ImageInfo local = copies.find(name);
        if (local != null) {
            // An earlier session that could not flush at close goes first (recovery: flushed if its holding is still
            // current, else orphaned; dropped with the copy if that is of a removed image).
            recover(local);
            local = copies.find(name);
        }
        long grantedAt = System.nanoTime();
        Controller.Opened opened = controller.open(name, local == null ? 0 : view.metaSeq(local.id()));
        // Copies pushed while the open waited for the lease (the holder's sync copies, a remote image's writes at its
        // home) were taken. From here on pushes are refused, and those already past the check land before the stale
        // blocks are found (awaitStoredCopies below), so none changes a block after it was found current.
        opening.add(name);
        ImageInfo info = local;
        ControllerSession session = null;
        RemoteWrites remote = null;
        try {
            if (local != null && !local.isCopyOf(opened.identity())) {
                // The metadata since the copy's metaSeq is another image's: start afresh, under a lease taken anew.
                copies.drop(local, opened.identity());
                local = null;
                grantedAt = System.nanoTime();
                opened = controller.open(name, 0);
            }
            if (local == null) {
                local = copies.create(name, opened.identity(), opened.sizeBytes());
            }
            store.awaitStoredCopies(local.id());
            info = local.sizeBytes() == opened.sizeBytes() ? local : store.resizeImage(name, opened.sizeBytes());
            remote = remoteWrites(opened.replication(), info);
            SessionWrites writes = remote != null ? remote : SessionWrites.inStore(store, view, info.id(), site);
            session = new ControllerSession(info, opened.epoch(), opened.epoch(), opened.ttl(), grantedAt, store, view, writes, controller, this::orphan, scheduler,
                    IoGate.opened(), leaseHold);
            view.apply(info.id(), opened.metaSeq(), opened.snapshot(), opened.entries());
            // Before the stale blocks are found: the recovered versions are committed by then, and the view has them.
            recovery.recover(info, opened);
            session.activate(checkpointInterval, checkpointBlocks);
        } catch (RuntimeException e) {
            giveUp(name, opened.epoch(), session, e);
            throw e;
        }
        active.add(name);
        log.info("{}: write lease at site {} (epoch {}, metaSeq {}, {} stale blocks{})", name, site, opened.epoch(), opened.metaSeq(), session.staleCount(),
                remote == null ? "" : "; remote: data stored at home " + remote.home());
        HandoffSession open = HandoffSession.active(session, opened.replication(), remote, this::closeInTurn);
        sessions.put(name, open);
        return open;
    }

    /**
     * Serves {@code name} in standby for a handoff from {@code from} (DESIGN.md section 4, step
     * 1), once an earlier session of it here has ended: the local copy is synced with the
     * controller's metadata (a read, no lease), and opens from now on are served in standby.
     * Returns the versions of the blocks this site holds, for the boost at {@code from}.
     * Standby is not an open: copies pushed meanwhile are stored.
     */
    public List<BlockVersion> standby(String name, String from) {
        return inTurn(name, () -> {
            HandoffSession open = sessions.get(name);
            if (open != null && open.role() != HandoffSession.Role.STANDBY) {
                throw new HeliotropeException(ErrorCode.IMAGE_IN_USE, "image '" + name + "' is " + open.role() + " here, not in standby");
            }
            ImageInfo local = synced(name).local();
            standbys.put(name, from);
            List<BlockVersion> held = new ArrayList<>();
            store.forEachBlock(local.id(), held::add);
            return held;
        });
    }

    /** A local copy whose view is synced with the controller, and the image's replication as the catalog has it. */
    private record SyncedCopy(ImageInfo local, Replication replication) {}

    /** The local copy of {@code name} with the view synced to what the controller has committed, created or replaced when it is another image's. */
    private SyncedCopy synced(String name) {
        ImageInfo local = copies.find(name);
        Controller.Opened opened = controller.read(name, local == null ? 0 : view.metaSeq(local.id())).opened();
        if (local != null && !local.isCopyOf(opened.identity())) {
            copies.drop(local, opened.identity());
            local = null;
            opened = controller.read(name, 0).opened();
        }
        if (local == null) {
            local = copies.create(name, opened.identity(), opened.sizeBytes());
        }
        view.apply(local.id(), opened.metaSeq(), opened.snapshot(), opened.entries());
        return new SyncedCopy(local, opened.replication());
    }

    private ImageSession startStandby(String name, String from) {
        SyncedCopy synced = synced(name);
        SortedMap<Long, GlobalBlock> stale = new TreeMap<>();
        StaleBlocks.find(store, view, synced.local().id(), entry -> stale.put(entry.block(), entry));
        HandoffSession session = HandoffSession.standby(synced.local(), synced.replication(), remoteWrites(synced.replication(), synced.local()), from,
                stale, this::closeInTurn);
        sessions.put(name, session);
        log.info("{}: open in standby for the lease at {} ({} stale blocks)", name, from, stale.size());
        return session;
    }

    /**
     * Where a {@code remote} image's writes go when it is open here, away from its home: a live
     * migration's destination too, or it would serve the image from its own store; null at
     * the home and in the other modes.
     */
    private RemoteWrites remoteWrites(Replication replication, ImageInfo info) {
        String home = replication.home();
        return replication.mode() == Replication.Mode.REMOTE && !home.isEmpty() && !home.equals(site) ? new RemoteWrites(home, view, info.id()) : null;
    }

    /** The session of {@code name} open here, in any role; fails with {@code IMAGE_NOT_FOUND} when none is. */
    public HandoffSession session(String name) {
        HandoffSession session = sessions.get(name);
        if (session == null) {
            throw new HeliotropeException(ErrorCode.IMAGE_NOT_FOUND, "image '" + name + "' is not open here");
        }
        return session;
    }

    /** Whether {@code name} is in standby here (asked for, opened or not). */
    public boolean inStandby(String name) {
        return standbys.containsKey(name);
    }

    /** The site a standby of {@code name} waits for, or empty. */
    public Optional<String> standbyFrom(String name) {
        return Optional.ofNullable(standbys.get(name));
    }

    /**
     * At the source: holds the image's I/O and hands the lease to {@code toSite}
     * ({@link HandoffSession#handOver}). Blocks until the outcome is known or the deadline.
     */
    public Handed handOver(String name, String toSite, long deadlineNanos) {
        return session(name).handOver(site, toSite, deadlineNanos);
    }

    /**
     * At the destination: adopts the lease a handoff moved here ({@link #adopt(HandoffSession)}).
     * A standby with no connection gives the lease up at once (the controller keeps a handoff
     * released before it completed open to a rollback). Fails with {@code STALE_LEASE} when the
     * lease is not this site's, and when the image is no longer in standby here: a rollback
     * abandoned it (or it lapsed), and an Activate that comes late must not make a writer here.
     * The lease and metadata are read before the image's turn: the controller's answer to the
     * standby's await ({@link #activate(String, Controller.Synced)}) may come meanwhile, and must
     * not wait for this read (a round trip to the controller); this one then finds the image
     * active. Active already, it reads nothing.
     */
    public long activate(String name) {
        HandoffSession open = sessions.get(name);
        ImageInfo local = copies.find(name);
        if (local == null || open != null && open.role() == HandoffSession.Role.ACTIVE) {
            return activate(name, this::adopt);
        }
        return activate(name, controller.read(name, view.metaSeq(local.id())));
    }

    /**
     * {@link #activate(String)} with the lease and metadata the controller answered when the
     * handoff moved the lease here ({@link #awaitHandoff}): adopted without reading them again.
     */
    public long activate(String name, Controller.Synced synced) {
        return activate(name, session -> adopt(session, () -> synced));
    }

    private long activate(String name, ToLongFunction<HandoffSession> adopt) {
        return inTurn(name, () -> {
            HandoffSession session = sessions.get(name);
            if (session != null && session.role() == HandoffSession.Role.ACTIVE) {
                return session.epoch();
            }
            if (standbys.remove(name) == null) {
                throw new HeliotropeException(ErrorCode.STALE_LEASE, "image '" + name + "' is not in standby here: its handoff was rolled back or lapsed");
            }
            return session == null ? giveUpUnused(name) : adopt.applyAsLong(session);
        });
    }

    /**
     * At the destination in standby: waits, holding no thread, for the handoff to move the
     * lease of {@code name} here ({@link Controller#awaitHandoff}), from the metaSeq its view
     * is at; {@link #activate(String, Controller.Synced)} adopts what it answers.
     */
    public CompletableFuture<Controller.Synced> awaitHandoff(String name, Duration wait) {
        ImageInfo local = copies.find(name);
        if (local == null) {
            return CompletableFuture.failedFuture(new HeliotropeException(ErrorCode.IMAGE_NOT_FOUND, "image '" + name + "' has no copy here"));
        }
        return controller.awaitHandoff(name, view.metaSeq(local.id()), wait);
    }

    /**
     * At the source after a rollback: adopts the lease moved back here and serves the held
     * connections, or, when the rollback came before the lease moved, follows the holding to
     * the epoch the rollback advanced it to. With no connection, gives the lease up.
     */
    public long reclaim(String name) {
        return inTurn(name, () -> {
            HandoffSession session = sessions.get(name);
            if (session == null) {
                return giveUpUnused(name);
            }
            return session.role() == HandoffSession.Role.ACTIVE ? session.reclaimed() : adopt(session);
        });
    }

    /** The lease handed here with no connection waiting for it: given up at once. */
    private long giveUpUnused(String name) {
        Controller.LeaseState lease = controller.lease(name);
        if (lease.holder().equals(site)) {
            controller.flush(name, lease.epoch(), List.of(), site, true);
            log.info("{}: lease handed here at epoch {} given up: no connection was waiting for it", name, lease.epoch());
        }
        return lease.epoch();
    }

    /**
     * Adopts the lease for the session's connections: pushes are refused from now on and
     * those under way land, the view takes the metadata committed since it was synced (a
     * read: no write to the controller), and the waiting requests go on under the lease,
     * renewed and checkpointed from now on. The holding is the lease's: a source whose
     * handover was rolled back before the lease moved still flushes what it wrote before.
     */
    private long adopt(HandoffSession session) {
        ImageInfo info = session.info();
        return adopt(session, () -> controller.read(info.name(), view.metaSeq(info.id())));
    }

    /** {@link #adopt(HandoffSession)} with the lease and metadata {@code sync} gives, once the pushes under way have landed. */
    private long adopt(HandoffSession session, Supplier<Controller.Synced> sync) {
        ImageInfo info = session.info();
        if (session.role() == HandoffSession.Role.ENDED) {
            throw new HeliotropeException(ErrorCode.STALE_LEASE, "image '" + info.name() + "' is no longer served here");
        }
        opening.add(info.name());
        try {
            store.awaitStoredCopies(info.id());
            Controller.Synced synced = sync.get();
            Controller.LeaseState lease = synced.lease();
            if (!lease.holder().equals(site)) {
                throw new HeliotropeException(ErrorCode.STALE_LEASE, "image '" + info.name() + "': the lease is not this site's to adopt (held by '"
                        + lease.holder() + "' at epoch " + lease.epoch() + ")");
            }
            Controller.Opened opened = synced.opened();
            view.apply(info.id(), opened.metaSeq(), opened.snapshot(), opened.entries());
            // Granted at most a TTL before it expires: renewals count from there.
            long grantedAt = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(Math.max(0, opened.ttl().toMillis() - synced.expiresInMillis()));
            SessionWrites writes = session.remoteWrites().<SessionWrites>map(remote -> remote).orElseGet(() -> SessionWrites.inStore(store, view, info.id(), site));
            ControllerSession adopted = new ControllerSession(info, lease.grantEpoch(), lease.epoch(), opened.ttl(), grantedAt, store, view, writes, controller,
                    this::orphan, scheduler, session.gate(), leaseHold);
            adopted.activate(checkpointInterval, checkpointBlocks);
            active.add(info.name());
            session.adopted(adopted);
            log.info("{}: write lease adopted at site {} (epoch {}, metaSeq {}, {} stale blocks)", info.name(), site, lease.epoch(), opened.metaSeq(),
                    adopted.staleCount());
            return lease.epoch();
        } finally {
            opening.remove(info.name());
        }
    }

    /**
     * Ends the session of {@code name} here without a flush or a release ({@link HandoffSession#end});
     * a standby asked for ends too. In the image's turn: an activation either came before, and
     * its session ends here, or comes after, and is refused.
     */
    public void end(String name, String reason) {
        inTurn(name, () -> {
            standbys.remove(name);
            HandoffSession session = sessions.get(name);
            if (session != null) {
                session.end(reason);
                active.remove(name);
            }
            return null;
        });
    }

    /**
     * Whether the image is open for write here, or opening, and has not handed its lease over:
     * copies from other sites must not land in it. A session that handed the lease over takes
     * them: its I/O is held, and the new holder's first sync copies must reach this site.
     */
    public boolean holdsForWrite(String name) {
        if (opening.contains(name)) {
            return true;
        }
        HandoffSession session = sessions.get(name);
        return active.contains(name) && (session == null || session.role() != HandoffSession.Role.HELD);
    }

    /**
     * Flushes, as {@link #recover()} does at start, what sessions that could not reach a
     * controller at their close left: as soon as one answers, under the lease they wrote
     * under, which is still this site's unless another site took it meanwhile (an expired
     * lease nobody took is still its holder's), so that no acknowledged write waits for the
     * next open or a restart. Images in a turn or open again are left for a later refresh.
     */
    private void flushLeftovers() {
        for (String name : leftovers) {
            ifIdle(name, () -> {
                ImageInfo local = copies.find(name);
                try {
                    if (local != null && !active.contains(name)) {
                        recover(local);
                    }
                    leftovers.remove(name);
                } catch (HeliotropeException e) {
                    log.debug("{}: blocks left by the last session still wait for a controller: {}", name, e.getMessage());
                } catch (RuntimeException e) {
                    log.warn("{}: flushing the blocks left by the last session failed, will retry", name, e);
                }
            });
        }
    }

    /** Ends a session in the image's turn: only an active one flushes and releases. */
    private void closeInTurn(HandoffSession session) {
        String name = session.info().name();
        inTurn(name, () -> {
            try {
                session.closeNow();
            } catch (HeliotropeException e) {
                if (e.code() == ErrorCode.PEER_UNAVAILABLE) {
                    leftovers.add(name);
                    log.warn("{}: no controller took the final flush; its blocks stay dirty here and go as soon as one answers: {}", name,
                            e.getMessage());
                }
                throw e;
            } finally {
                active.remove(name);
                sessions.remove(name, session);
            }
            return null;
        });
    }

    /** Runs {@code action} in the image's turn if nobody has it now, else not at all. */
    private void ifIdle(String image, Runnable action) {
        CompletableFuture<Void> turn = new CompletableFuture<>();
        if (turns.putIfAbsent(image, turn) != null) {
            return;
        }
        try {
            action.run();
        } finally {
            turns.remove(image, turn);
            turn.complete(null);
        }
    }

    /**
     * Runs {@code action} once every earlier open, close or recovery of the image has
     * ended. Waits only on the image's own turns: no lock that others wait on is held
     * meanwhile.
     */
    private <T> T inTurn(String image, Supplier<T> action) {
        CompletableFuture<Void> turn = new CompletableFuture<>();
        CompletableFuture<Void> previous = turns.put(image, turn);
        try {
            if (previous != null) {
                previous.join();
            }
            return action.get();
        } finally {
            turns.remove(image, turn);
            turn.complete(null);
        }
    }

    /** Blocks dropped because their lease was fenced before they reached the controller. */
    public long orphanedBlocks() {
        return orphanedBlocks.get();
    }

    private void giveUp(String name, long epoch, ControllerSession session, RuntimeException cause) {
        try {
            if (session != null) {
                session.abandon();
            } else {
                controller.flush(name, epoch, List.of(), site, true);
            }
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    private void orphan(ImageInfo image, List<BlockVersion> blocks, String reason) {
        store.markFlushed(image.id(), blocks);
        orphanedBlocks.addAndGet(blocks.size());
        log.warn("{}: {} blocks written here were never committed and are orphaned; they will not be served ({})",
                image.name(), blocks.size(), reason);
    }

    /** Schedules the catalog refresh; returns what cancels it. */
    public Runnable startRefreshing(Duration every) {
        var task = scheduler.scheduleWithFixedDelay(this::refresh, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
        return () -> task.cancel(false);
    }
}
