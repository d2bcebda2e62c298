package io.heliotrope.controller.lease;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.time.Duration;
import java.util.Locale;

import static java.util.Objects.requireNonNullElse;

/**
 * The write lease of an image, as kept in its {@code lease} znode. {@code holder} is empty
 * when nobody holds it. Each grant raises the epoch, which never goes down, not even on
 * release: a writer is fenced as soon as the epoch it was granted is no longer current.
 * Its holder may also advance it to the next epoch without a new grant, when its version
 * counter nears its limit ({@code io.heliotrope.version.Version}): the epochs from
 * {@code grantEpoch} to {@code epoch} are one holding, and the holder's versions of any of
 * them are its own to flush. {@code movingTo} names the site a prepared handoff will move
 * the lease to.
 */
public record Lease(String holder, long epoch, long grantEpoch, long expiresEpochMillis, long ttlMillis, String movingTo) {
    public Lease {
        holder = requireNonNullElse(holder, "");
        movingTo = requireNonNullElse(movingTo, "");
        // A lease written before epochs could advance has none: its holding is its one epoch.
        grantEpoch = grantEpoch == 0 ? epoch : grantEpoch;
    }

    /** The lease of a new image: nobody holds it, epoch 0. */
    public static Lease none(Duration ttl) {
        return new Lease("", 0, 0, 0, ttl.toMillis(), "");
    }

    public boolean held() {
        return !holder.isEmpty();
    }

    /** Held and not expired at {@code now}. */
    public boolean activeAt(long now) {
        return held() && now < expiresEpochMillis;
    }

    public Lease grantTo(String site, long now, long ttl) {
        return new Lease(site, epoch + 1, epoch + 1, now + ttl, ttl, "");
    }

    public Lease renewed(long now, long ttl) {
        return new Lease(holder, epoch, grantEpoch, now + ttl, ttl, movingTo);
    }

    /** The same holding at the next epoch, renewed. */
    public Lease advanced(long now, long ttl) {
        return new Lease(holder, epoch + 1, grantEpoch, now + ttl, ttl, movingTo);
    }

    public Lease released() {
        return new Lease("", epoch, grantEpoch, 0, ttlMillis, "");
    }

    public Lease preparing(String site) {
        return new Lease(holder, epoch, grantEpoch, expiresEpochMillis, ttlMillis, site);
    }

    /** Whether {@code site} holds this lease and {@code epoch} is one of its holding's, from the grant on. */
    public boolean heldAt(String site, long epoch) {
        return held() && holder.equals(site) && grantEpoch <= epoch && epoch <= this.epoch;
    }

    /**
     * Fails with {@code STALE_LEASE}, saying why, unless {@code site} holds this lease at
     * {@code epoch}; when {@code live}, it must not have expired either.
     */
    public void checkWriter(String image, String site, long epoch, long now, boolean live) {
        String stale = "image '" + image + "': lease epoch " + epoch + " of site " + site + " is stale: ";
        if (held() && (!holder.equals(site) || this.epoch != epoch)) {
            throw new HeliotropeException(ErrorCode.STALE_LEASE, stale + "fenced by epoch " + this.epoch + " at site " + holder);
        }
        if (!held()) {
            throw new HeliotropeException(ErrorCode.STALE_LEASE,
                    stale + (this.epoch == epoch ? "released" : "fenced by epoch " + this.epoch + ", since released"));
        }
        if (live && now >= expiresEpochMillis) {
            throw new HeliotropeException(ErrorCode.STALE_LEASE, stale + "expired " + seconds(now - expiresEpochMillis) + " s ago");
        }
    }

    /** The error for a site that wants the lease while this one is active. */
    public HeliotropeException heldError(String image, long now) {
        return new HeliotropeException(ErrorCode.LEASE_HELD, "image '" + image + "': write lease held by site " + holder
                + " (epoch " + epoch + ", " + seconds(expiresEpochMillis - now) + " s left)");
    }

    private static String seconds(long millis) {
        return String.format(Locale.ROOT, "%.1f", millis / 1000.0);
    }
}
