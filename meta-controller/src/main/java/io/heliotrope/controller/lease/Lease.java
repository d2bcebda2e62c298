package io.heliotrope.controller.lease;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

import static java.util.Objects.requireNonNullElse;

/**
 * The write lease of an image, as kept in its {@code lease} znode. {@code holder} is empty
 * when nobody holds it. Each grant raises the epoch, which never goes down, not even on
 * release: a writer is fenced as soon as the epoch it was granted is no longer current.
 * Its holder may also advance it to the next epoch without a new grant, when its version
 * counter nears its limit ({@code io.heliotrope.version.Version}): the epochs from
 * {@code grantEpoch} to {@code epoch} are one holding, and the holder's versions of any of
 * them are its own to flush. {@code movingTo} names the site a prepared handoff will move
 * the lease to, until {@code movingExpiresEpochMillis}: a prepare not renewed by then has
 * lapsed and counts as none. {@code handedFrom} is the site a handoff's final flush moved the
 * lease from, kept through the new holder's renewals and flushes until the handoff is
 * completed (it can no longer be rolled back) or rolled back.
 *
 * <p>For the {@code sync} mode, {@code syncSites} are the sets of sites the holder recorded
 * as taking copies of its writes in this holding, each set once. A holding that ends with a
 * final flush (release, handoff) needs them no more; one that is granted anew without one
 * died, and its sets go into {@code recovery}, which only a recovery flush clears.
 */
public record Lease(String holder, long epoch, long grantEpoch, long expiresEpochMillis, long ttlMillis, String movingTo,
        List<List<String>> syncSites, SyncRecovery recovery, long movingExpiresEpochMillis, String handedFrom) {
    public Lease {
        holder = requireNonNullElse(holder, "");
        movingTo = requireNonNullElse(movingTo, "");
        handedFrom = requireNonNullElse(handedFrom, "");
        // A lease written before epochs could advance has none: its holding is its one epoch.
        grantEpoch = grantEpoch == 0 ? epoch : grantEpoch;
        // Nor had one written before the sync mode recorded its sites any sets or recovery.
        syncSites = siteSets(syncSites);
        recovery = requireNonNullElse(recovery, SyncRecovery.NONE);
    }

    /** The lease of a new image: nobody holds it, epoch 0. */
    public static Lease none(Duration ttl) {
        return new Lease("", 0, 0, 0, ttl.toMillis(), "", List.of(), SyncRecovery.NONE, 0, "");
    }

    /** Immutable sets of sites, each in name order. */
    static List<List<String>> siteSets(List<List<String>> sets) {
        return requireNonNullElse(sets, List.<List<String>>of()).stream().map(set -> List.copyOf(new TreeSet<>(set))).toList();
    }

    public boolean held() {
        return !holder.isEmpty();
    }

    /** Held and not expired at {@code now}. */
    public boolean activeAt(long now) {
        return held() && now < expiresEpochMillis;
    }

    /** Whether a move to {@code movingTo} is prepared and has not lapsed at {@code now}. */
    public boolean preparedAt(long now) {
        return !movingTo.isEmpty() && now < movingExpiresEpochMillis;
    }

    /**
     * A new holding of {@code site}. A holding still held (it expired, or its holder reopens)
     * ended without a final flush: its sync sites, if any, join the recovery.
     */
    public Lease grantTo(String site, long now, long ttl) {
        SyncRecovery owed = held() && !syncSites.isEmpty() ? recovery.plus(holder, grantEpoch, epoch, syncSites) : recovery;
        return new Lease(site, epoch + 1, epoch + 1, now + ttl, ttl, "", List.of(), owed, 0, "");
    }

    /** Extended by {@code ttl} from {@code now}; a prepare that lapsed is dropped. */
    public Lease renewed(long now, long ttl) {
        return at(epoch, now + ttl, ttl, now);
    }

    /** The same holding at the next epoch, renewed. */
    public Lease advanced(long now, long ttl) {
        return at(epoch + 1, now + ttl, ttl, now);
    }

    private Lease at(long epoch, long expires, long ttl, long now) {
        boolean prepared = preparedAt(now);
        return new Lease(holder, epoch, grantEpoch, expires, ttl, prepared ? movingTo : "", syncSites, recovery,
                prepared ? movingExpiresEpochMillis : 0, handedFrom);
    }

    /**
     * Given up after a final flush, which committed whatever the sync sites hold; a recovery
     * still owed stays owed, and so does a handoff that brought the lease here and was not
     * completed: {@code handedFrom} stays, so that it can still be rolled back (the
     * destination gave the lease up before its guest ever ran there).
     */
    public Lease released() {
        return new Lease("", epoch, grantEpoch, 0, ttlMillis, "", List.of(), recovery, 0, handedFrom);
    }

    /** Handed to {@code site} by a final flush: a new holding, the old one ended cleanly, the handoff not yet completed. */
    public Lease movedTo(String site, long now, long ttl) {
        Lease granted = released().grantTo(site, now, ttl);
        return new Lease(site, granted.epoch, granted.grantEpoch, granted.expiresEpochMillis, ttl, "", List.of(), granted.recovery, 0, holder);
    }

    /**
     * A move to {@code site} prepared, or renewed, until {@code now + ttl}. A handoff that
     * brought the lease here is over once a move away from here is prepared.
     */
    public Lease preparing(String site, long now, long ttl) {
        return new Lease(holder, epoch, grantEpoch, expiresEpochMillis, ttlMillis, site, syncSites, recovery, now + ttl, "");
    }

    /** With no move prepared. */
    public Lease unprepared() {
        return new Lease(holder, epoch, grantEpoch, expiresEpochMillis, ttlMillis, "", syncSites, recovery, 0, handedFrom);
    }

    /** The handoff that brought the lease here can no longer be rolled back. */
    public Lease completed() {
        return new Lease(holder, epoch, grantEpoch, expiresEpochMillis, ttlMillis, movingTo, syncSites, recovery, movingExpiresEpochMillis, "");
    }

    /**
     * Broken by an operator at {@code now} (its holder is dead, they say): expired, so that the
     * next open fences it with a new grant, and with no TTL left, so that, unlike a lease that
     * lapsed, its holder cannot take it up again meanwhile.
     */
    public Lease brokenAt(long now) {
        return new Lease(holder, epoch, grantEpoch, Math.min(now, expiresEpochMillis), 0, "", syncSites, recovery, 0, handedFrom);
    }

    /** Whether an operator broke it ({@link #brokenAt}): a holder may not go on under it even while nobody else took it. */
    public boolean broken() {
        return ttlMillis == 0;
    }

    /** With {@code sites} among the sets of sync sites; unchanged when recorded already. */
    public Lease withSyncSites(List<String> sites) {
        List<String> set = List.copyOf(new TreeSet<>(sites));
        if (syncSites.contains(set)) {
            return this;
        }
        List<List<String>> sets = new ArrayList<>(syncSites);
        sets.add(set);
        return new Lease(holder, epoch, grantEpoch, expiresEpochMillis, ttlMillis, movingTo, sets, recovery, movingExpiresEpochMillis, handedFrom);
    }

    /** After the recovery flush: renewed, nothing owed. */
    public Lease recovered(long now, long ttl) {
        Lease renewed = renewed(now, ttl);
        return new Lease(holder, epoch, grantEpoch, renewed.expiresEpochMillis, ttl, renewed.movingTo, syncSites, SyncRecovery.NONE,
                renewed.movingExpiresEpochMillis, handedFrom);
    }

    /** Whether {@code site} holds this lease and {@code epoch} is one of its holding's, from the grant on. */
    public boolean heldAt(String site, long epoch) {
        return held() && holder.equals(site) && grantEpoch <= epoch && epoch <= this.epoch;
    }

    /**
     * Fails with {@code STALE_LEASE}, saying why, unless {@code site} holds this lease at
     * {@code epoch}; when {@code live}, it must not have been broken either. A lease that
     * expired is any site's to take; until one takes it (a new epoch) its holder may still
     * renew it and flush under it: the holder served nothing from the end of its own, shorter,
     * validity (the site counts 4/5 of the TTL from its last renewal's send), and nobody else
     * wrote since. That is how a holder goes on after ZooKeeper's quorum, or every controller,
     * was out of its reach for longer than the TTL, and how what it had written and not yet
     * flushed is still committed then.
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
        if (live && now >= expiresEpochMillis && broken()) {
            throw new HeliotropeException(ErrorCode.STALE_LEASE, stale + "broken by an operator " + seconds(now - expiresEpochMillis) + " s ago");
        }
    }

    /**
     * Fails with {@code STALE_LEASE} unless {@code site} holds this lease, live at
     * {@code now}, and {@code epoch} is one of its holding's.
     */
    public void checkHolding(String image, String site, long epoch, long now) {
        checkWriter(image, site, heldAt(site, epoch) ? this.epoch : epoch, now, true);
    }

    /**
     * Fails unless the final flush of this lease's holder may move it to {@code to} at
     * {@code now}: with {@code INVALID_ARGUMENT} when no move, or another, was prepared, with
     * {@code STALE_LEASE} when the prepare lapsed.
     */
    public void checkMove(String image, String to, long now) {
        String refused = "image '" + image + "': cannot move the lease to " + to + ": ";
        if (movingTo.isEmpty()) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, refused + "no move was prepared");
        }
        if (!movingTo.equals(to)) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, refused + "the prepared move is to " + movingTo);
        }
        if (!preparedAt(now)) {
            throw new HeliotropeException(ErrorCode.STALE_LEASE, refused + "its prepare lapsed "
                    + seconds(now - movingExpiresEpochMillis) + " s ago (not renewed); prepare it again");
        }
    }

    /** Where the lease is, for messages: "at site a (epoch 4)" or "held by nobody (epoch 4)". */
    public String describe() {
        return (held() ? "at site " + holder : "held by nobody") + " (epoch " + epoch + ")";
    }

    /** The error for a site that wants the lease while this one is active. */
    public HeliotropeException heldError(String image, long now) {
        return new HeliotropeException(ErrorCode.LEASE_HELD, "image '" + image + "': write lease held by site " + holder
                + " (epoch " + epoch + ", " + seconds(expiresEpochMillis - now) + " s left)");
    }

    /** Milliseconds as seconds with one decimal, for messages. */
    static String seconds(long millis) {
        return String.format(Locale.ROOT, "%.1f", millis / 1000.0);
    }
}
