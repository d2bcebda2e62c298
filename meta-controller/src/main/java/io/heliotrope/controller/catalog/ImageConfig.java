package io.heliotrope.controller.catalog;

import io.heliotrope.controller.Names;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.image.ImageNames;

import java.util.UUID;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

/**
 * A catalog entry: what an image is (name, size, identity, fixed at creation) and how it
 * is replicated (DESIGN.md section 6, changed by {@link ReplicationUpdate}s; a site applies
 * a change from the image's next open). {@code uuid} is the image's identity: random at
 * creation, never reused, so that an image removed and created again under its name is
 * another image to every site. Null only in a config written before identities, which
 * {@link ImageCatalog} gives one on its first read.
 *
 * <p>{@code transitions} is the hint given at creation or since; the table sites use blends
 * it with the observed lease moves ({@link CatalogImage#transitions()}). {@code home} is
 * empty until the first write open, whose site becomes the home unless one was chosen.
 * {@code pull} is the background pull as set ({@link #pulls()} as it applies).
 * A config from before these settings reads with their defaults: integer K and S read as
 * real numbers, a missing home as none, {@code syncCopies} 0 as 1, no cap, no budget, the
 * pull unspecified, {@code syncMin} 0.
 *
 * <p>{@code syncMin} is the fewest copies, the writer's own included, with which a write of a
 * sync image is acknowledged when fewer than {@code syncCopies} other sites take one (Ceph's
 * {@code min_size}); 0 is the default, {@link #syncMinCopies()}.
 */
public record ImageConfig(
        String name,
        long sizeBytes,
        int blockSize,
        long createdEpochMillis,
        PropagationMode mode,
        double k,
        double s,
        TransitionTable transitions,
        UUID uuid,
        String home,
        int syncCopies,
        long bandwidthBytesPerSecond,
        long budgetBytesPerDay,
        PullMode pull,
        int syncMin) {
    public static final int BLOCK_SIZE = 4096;
    public static final double DEFAULT_K = 1000;
    public static final double DEFAULT_S = 1;
    public static final int DEFAULT_SYNC_COPIES = 1;
    /** Sync copies go to other sites, of which a transition table names at most this many. */
    public static final int MAX_SYNC_COPIES = TransitionTable.MAX_SITES - 1;

    public ImageConfig {
        ImageNames.check(name);
        requireNonNull(mode, "mode is null");
        requireNonNull(transitions, "transitions is null");
        home = requireNonNullElse(home, "");
        pull = requireNonNullElse(pull, PullMode.UNSPECIFIED);
        syncCopies = syncCopies == 0 ? DEFAULT_SYNC_COPIES : syncCopies;
        if (!home.isEmpty()) {
            Names.site(home);
        }
        checkKnob(name, "K", k);
        checkKnob(name, "S", s);
        if (syncCopies < 1 || syncCopies > MAX_SYNC_COPIES) {
            throw invalid(name, "sync copies must be between 1 and " + MAX_SYNC_COPIES + ", not " + syncCopies);
        }
        if (syncMin < 0 || syncMin > syncCopies + 1) {
            throw invalid(name, "sync min must be between 1 and sync copies + 1 (" + (syncCopies + 1) + "), or 0 for that default, not "
                    + Integer.toUnsignedString(syncMin));
        }
        if (bandwidthBytesPerSecond < 0 || budgetBytesPerDay < 0) {
            throw invalid(name, "bandwidth cap and daily budget must be >= 0 (0: none), not "
                    + Long.toUnsignedString(bandwidthBytesPerSecond) + " and " + Long.toUnsignedString(budgetBytesPerDay));
        }
        if (mode == PropagationMode.REMOTE && pull == PullMode.ON) {
            throw invalid(name, "a remote image keeps no copies away from its home, so it cannot be pulled: "
                    + "turn its pull off or choose another mode");
        }
    }

    public ImageConfig withUuid(UUID uuid) {
        return new ImageConfig(name, sizeBytes, blockSize, createdEpochMillis, mode, k, s, transitions, requireNonNull(uuid, "uuid is null"),
                home, syncCopies, bandwidthBytesPerSecond, budgetBytesPerDay, pull, syncMin);
    }

    /** The same image with the replication settings {@code update} sets; validated again. */
    public ImageConfig with(ReplicationUpdate update) {
        return new ImageConfig(name, sizeBytes, blockSize, createdEpochMillis,
                requireNonNullElse(update.mode(), mode),
                requireNonNullElse(update.k(), k),
                requireNonNullElse(update.s(), s),
                requireNonNullElse(update.transitions(), transitions),
                uuid,
                requireNonNullElse(update.home(), home),
                requireNonNullElse(update.syncCopies(), syncCopies),
                requireNonNullElse(update.bandwidthBytesPerSecond(), bandwidthBytesPerSecond),
                requireNonNullElse(update.budgetBytesPerDay(), budgetBytesPerDay),
                requireNonNullElse(update.pull(), pull),
                requireNonNullElse(update.syncMin(), syncMin));
    }

    /**
     * The fewest copies, the writer's included, a sync write is acknowledged with: as set, else
     * all of them, {@code syncCopies + 1}. The mode is chosen for images that must survive the
     * loss of their writer's site, so running degraded is the operator's explicit choice
     * (DESIGN.md section 6).
     */
    public int syncMinCopies() {
        return syncMin == 0 ? syncCopies + 1 : syncMin;
    }

    /**
     * Whether a site that opens the image for write pulls the blocks it lacks: as set, else
     * the mode's default (DESIGN.md section 4): on for proactive (it promises cheap moves) and
     * sync (after a failover the new holder lacks little), off for on-demand (a block moves
     * when it is read elsewhere) and remote (no copies to pull into).
     */
    public boolean pulls() {
        return switch (pull) {
            case ON -> true;
            case OFF -> false;
            case UNSPECIFIED -> mode == PropagationMode.PROACTIVE || mode == PropagationMode.SYNC;
        };
    }

    /** The number of blocks; valid block indexes are below it. */
    public long blocks() {
        return sizeBytes / blockSize;
    }

    private static void checkKnob(String image, String knob, double value) {
        if (!(value >= 0) || Double.isInfinite(value)) {
            throw invalid(image, knob + " must be a finite number >= 0, not " + value);
        }
    }

    private static HeliotropeException invalid(String image, String reason) {
        return new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "image '" + image + "': " + reason);
    }
}
