package io.heliotrope.storage.view;

import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.Replication;
import io.heliotrope.storage.view.RemoteWrites;

import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;

/**
 * One open of an image at this site, shared by all its connections: the epoch its new
 * versions carry and which local copies are current. A standalone site owns its images;
 * a site with a controller holds the image's write lease for the session. A session may
 * move on to later epochs ({@link #nextEpoch()}); what it wrote under each of them is
 * its own, to flush and to close with.
 */
public interface ImageSession {
    /** The {@link #epoch()} of a session that has none yet; epochs start at 1. */
    long NO_EPOCH = 0;

    ImageInfo info();

    /** How the image is replicated, as its catalog said when it opened here; a standalone site replicates nothing. */
    default Replication replication() {
        return Replication.LOCAL;
    }

    /**
     * The epoch of this session's new versions ({@link io.heliotrope.version.Version}), or
     * {@link #NO_EPOCH} while a standalone site has no room to record one: its first write
     * then asks for one with {@link #nextEpoch()}.
     */
    long epoch();

    /**
     * The epoch this site's holding of the image began at ({@link #epoch()} or earlier): a
     * local copy of that epoch or later is this session's own write, never replaced by a
     * copy from elsewhere. Every other local copy is older than any version this session
     * writes, even one from an epoch that was fenced.
     */
    default long holdingEpoch() {
        return epoch();
    }

    /**
     * Moves the session to an epoch larger than every one before it, for the versions it
     * writes from now on, without ending it: the version counter nears its limit under the
     * current epoch. Blocks (it may ask the controller); returns the new epoch.
     */
    long nextEpoch();

    /** Fails with {@code STALE_LEASE} once this site may no longer serve the image. */
    void checkCurrent();

    /** The blocks in [first, first + count) whose local copy is not the current version. */
    SortedMap<Long, GlobalBlock> stale(long first, long count);

    /** The stale entry of one block, or null when its local copy is current. */
    default GlobalBlock staleEntry(long block) {
        return stale(block, 1).get(block);
    }

    /**
     * How many blocks are current only at another site now (stale entries that are not zero
     * markers): what a background pull has left to bring. 0 for a session that keeps no count.
     */
    default long elsewhereBlocks() {
        return 0;
    }

    /** This site just wrote these blocks: their local copies are current now. */
    void wrote(long first, long count);

    /** This committed version of a block, one of {@link #stale}, just arrived from its holder: the local copy is current now. */
    void fetched(GlobalBlock block);

    /**
     * Sync mode: records with the lease that {@code sites} take copies of this session's
     * writes; a write they hold is acknowledged only once this completes (see
     * {@code Controller#recordSyncSites}). Does not block. A standalone site, which has no
     * other sites, has nothing to record.
     */
    default CompletableFuture<Void> recordSyncSites(Set<String> sites) {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * The {@code remote} mode away from the image's home: this session's writes, stored at
     * the home only and tracked in memory here. Empty when this site's store holds the image's
     * blocks (any other mode, or at the home).
     */
    default Optional<RemoteWrites> remoteWrites() {
        return Optional.empty();
    }

    /**
     * How many blocks this session wrote under its lease and has not flushed to the controller
     * yet. None at a standalone site, which has no controller. May read the store: call it off
     * event loops.
     */
    default long unflushedBlocks() {
        return 0;
    }

    /**
     * Which of its connections' requests are served now: all of them, but for a session in a
     * handoff (standby, or held after handing the image over).
     */
    default IoGate gate() {
        return IoGate.ALWAYS;
    }

    /** Ends the session: flushes what is left and gives the image up. */
    void close();
}
