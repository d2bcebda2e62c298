package io.heliotrope.storage.session;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.Replication;
import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.storage.view.IoGate;
import io.heliotrope.storage.view.RemoteWrites;
import io.heliotrope.storage.view.StaleBlocks;

import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import static java.util.Objects.requireNonNull;

/**
 * The session of an image open here, as its connections share it through a handoff
 * (DESIGN.md section 4): {@link Role#ACTIVE} under this site's lease ({@link ControllerSession});
 * {@link Role#STANDBY} before the lease comes here (reads from the synced view, writes wait at
 * the {@link IoGate}); {@link Role#HELD} after this site handed the lease over (reads and
 * writes wait; FLUSH is answered); {@link Role#ENDED} once a hold ended or a standby was
 * abandoned (every request fails). The same connections go from standby or held to active
 * when a lease is adopted here.
 */
public final class HandoffSession implements ImageSession {
    public enum Role { STANDBY, ACTIVE, HELD, ENDED }

    private final ImageInfo info;
    private final Replication replication;
    private final RemoteWrites remote;
    private final IoGate gate;
    private volatile ImageSession current;
    private volatile Role role;
    private volatile String peer;
    private final Consumer<HandoffSession> closer;

    private HandoffSession(ImageInfo info, Replication replication, RemoteWrites remote, ImageSession current, Role role, IoGate gate, String peer,
            Consumer<HandoffSession> closer) {
        this.closer = requireNonNull(closer, "closer is null");
        this.info = requireNonNull(info, "info is null");
        this.replication = requireNonNull(replication, "replication is null");
        this.remote = remote;
        this.current = requireNonNull(current, "current is null");
        this.role = role;
        this.gate = gate;
        this.peer = peer;
    }

    /** @param remote the session's writes when the image is remote and this site is not its home, else null */
    static HandoffSession active(ControllerSession session, Replication replication, RemoteWrites remote, Consumer<HandoffSession> closer) {
        return new HandoffSession(session.info(), replication, remote, session, Role.ACTIVE, session.gate(), "", closer);
    }

    /**
     * A standby for the lease {@code from} holds: {@code stale} are the blocks whose local copy is
     * not the committed version; {@code remote}, the writes of a {@code remote} image away from its
     * home (null otherwise), which the session keeps once adopted.
     */
    static HandoffSession standby(ImageInfo info, Replication replication, RemoteWrites remote, String from, SortedMap<Long, GlobalBlock> stale,
            Consumer<HandoffSession> closer) {
        return new HandoffSession(info, replication, remote, new StandbyCopies(info, stale), Role.STANDBY, IoGate.standby(), from, closer);
    }

    public Role role() {
        return role;
    }

    public String peer() {
        return peer;
    }

    /**
     * Holds every connection's reads and writes, waits for those under way to end, then hands
     * the lease over ({@link ControllerSession#handOver}); the I/O stays held whatever comes.
     */
    Handed handOver(String site, String toSite, long deadlineNanos) {
        if (role != Role.ACTIVE && role != Role.HELD) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "image '" + info.name() + "' is not open for write here: it is " + role);
        }
        role = Role.HELD;
        peer = toSite;
        try {
            gate.hold().get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "image '" + info.name() + "': requests under way did not end before the deadline");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HeliotropeException(ErrorCode.SHUTTING_DOWN, "interrupted while handing image '" + info.name() + "' over");
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        }
        return ((ControllerSession) current).handOver(site, toSite, deadlineNanos);
    }

    /** Renews the lease soon, on the scheduler, if it is this site's ({@link ControllerSession#renewSoon()}). */
    void renewSoon() {
        if (current instanceof ControllerSession session) {
            session.renewSoon();
        }
    }

    /** At a reclaim of an active session: its holding follows the lease to the epoch a rollback before the move left it at. */
    long reclaimed() {
        return ((ControllerSession) current).reclaimed();
    }

    /** A lease adopted here (activation, or a reclaim after a rollback): the held and waiting requests go on under it. */
    void adopted(ControllerSession session) {
        current = session;
        role = Role.ACTIVE;
        gate.release();
    }

    /** Serves nothing more: waiting and later requests fail. An active session is dropped without a flush. */
    void end(String reason) {
        if (role == Role.ACTIVE) {
            ((ControllerSession) current).drop(reason);
        }
        role = Role.ENDED;
        gate.end(new HeliotropeException(ErrorCode.STALE_LEASE, "image '" + info.name() + "' is no longer served here: " + reason));
    }

    /** Called in the image's turn when its last connection closes: only an active session flushes and releases. */
    void closeNow() {
        if (role == Role.ACTIVE) {
            current.close();
        }
    }

    @Override
    public IoGate gate() {
        return gate;
    }

    @Override
    public Optional<RemoteWrites> remoteWrites() {
        return Optional.ofNullable(remote);
    }

    @Override
    public ImageInfo info() {
        return info;
    }

    @Override
    public Replication replication() {
        return replication;
    }

    @Override
    public long epoch() {
        return current.epoch();
    }

    @Override
    public long holdingEpoch() {
        return current.holdingEpoch();
    }

    @Override
    public long nextEpoch() {
        return current.nextEpoch();
    }

    @Override
    public void checkCurrent() {
        current.checkCurrent();
    }

    @Override
    public SortedMap<Long, GlobalBlock> stale(long first, long count) {
        return current.stale(first, count);
    }

    @Override
    public GlobalBlock staleEntry(long block) {
        return current.staleEntry(block);
    }

    @Override
    public long elsewhereBlocks() {
        return current.elsewhereBlocks();
    }

    @Override
    public void wrote(long first, long count) {
        current.wrote(first, count);
    }

    @Override
    public void fetched(GlobalBlock block) {
        current.fetched(block);
    }

    @Override
    public long unflushedBlocks() {
        return current.unflushedBlocks();
    }

    @Override
    public CompletableFuture<Void> recordSyncSites(Set<String> sites) {
        return current.recordSyncSites(sites);
    }

    /** Closes through its owner ({@link ControllerSessions}), in the image's turn, which calls {@link #closeNow()}. */
    @Override
    public void close() {
        closer.accept(this);
    }

    /**
     * The copies of a standby: current where their version is the committed one the view was
     * synced to. It has no epoch and writes nothing (writes wait at the gate), so every local
     * copy may be replaced by a fetched committed one.
     */
    private static final class StandbyCopies implements ImageSession {
        private final ImageInfo info;
        private final ConcurrentSkipListMap<Long, GlobalBlock> stale;

        StandbyCopies(ImageInfo info, SortedMap<Long, GlobalBlock> stale) {
            this.info = info;
            this.stale = new ConcurrentSkipListMap<>(stale);
        }

        @Override
        public ImageInfo info() {
            return info;
        }

        @Override
        public long epoch() {
            return NO_EPOCH;
        }

        @Override
        public long holdingEpoch() {
            return Long.MAX_VALUE;
        }

        @Override
        public long nextEpoch() {
            throw new HeliotropeException(ErrorCode.STALE_LEASE, "image '" + info.name() + "' is in standby here: it has no lease yet");
        }

        @Override
        public void checkCurrent() {}

        @Override
        public SortedMap<Long, GlobalBlock> stale(long first, long count) {
            return StaleBlocks.copyOf(stale, first, count);
        }

        @Override
        public void wrote(long first, long count) {
            throw new IllegalStateException("image '" + info.name() + "': written in standby");
        }

        @Override
        public void fetched(GlobalBlock block) {
            stale.remove(block.block(), block);
        }

        @Override
        public void close() {}
    }
}
