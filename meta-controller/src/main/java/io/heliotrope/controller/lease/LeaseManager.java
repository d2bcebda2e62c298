package io.heliotrope.controller.lease;

import io.heliotrope.controller.Names;
import io.heliotrope.controller.metrics.ControllerMetrics;
import io.heliotrope.controller.zookeeper.Json;
import io.heliotrope.controller.zookeeper.Transaction;
import io.heliotrope.controller.zookeeper.Versioned;
import io.heliotrope.controller.zookeeper.ZooKeeperLayout;
import io.heliotrope.controller.zookeeper.ZooKeeperStore;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.image.ImageNames;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;

import static java.util.Objects.requireNonNull;

/**
 * Grants, renews, releases and breaks write leases, and prepares, rolls back and completes
 * their handoffs. Every change is a compare-and-set on the lease znode's version: of two
 * controllers racing, one wins and the other re-reads and decides again on what it finds.
 * A grant counts the lease's move from its last holder in the same transaction
 * ({@link LeaseMoves}); a rolled-back handoff takes its count back in the same way.
 */
public final class LeaseManager {
    private static final Logger log = LoggerFactory.getLogger(LeaseManager.class);
    private static final int MAX_ATTEMPTS = 16;

    /** A change to a lease, decided on the lease as read at {@code now}; may throw to refuse. */
    @FunctionalInterface
    public interface Change {
        Lease apply(Lease current, long now);
    }

    private final ZooKeeperStore zk;
    private final ZooKeeperLayout layout;
    private final Clock clock;
    private final long ttlMillis;
    private final long prepareTtlMillis;
    private final ControllerMetrics metrics;

    /** {@code prepareTtl}: how long a prepared handoff lasts unless prepared again. */
    public LeaseManager(ZooKeeperStore zk, ZooKeeperLayout layout, Clock clock, Duration ttl, Duration prepareTtl, ControllerMetrics metrics) {
        this.zk = requireNonNull(zk, "zk is null");
        this.layout = requireNonNull(layout, "layout is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.ttlMillis = ttl.toMillis();
        this.prepareTtlMillis = prepareTtl.toMillis();
        this.metrics = requireNonNull(metrics, "metrics is null");
    }

    public long ttlMillis() {
        return ttlMillis;
    }

    public Versioned<Lease> read(String image) {
        return zk.readJson(layout.image(ImageNames.check(image)).lease(), Lease.class).orElseThrow(() -> Names.imageNotFound(image));
    }

    /** The lease as it is, watched: {@code changed} completes at its next change. */
    public Versioned<Lease> readWatched(String image, CompletableFuture<Void> changed) {
        return zk.readJsonWatched(layout.image(ImageNames.check(image)).lease(), Lease.class, changed).orElseThrow(() -> Names.imageNotFound(image));
    }

    /** Applies {@code change} with compare-and-set, re-reading after a lost race; a new grant counts as a move. */
    public Lease update(String image, Change change) {
        return update(image, change, this::recordGrant);
    }

    /** What a lease change adds to its transaction for the lease moves. */
    @FunctionalInterface
    private interface MovesChange {
        void add(Transaction transaction, String image, Lease current, Lease next);
    }

    private Lease update(String image, Change change, MovesChange moves) {
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            Versioned<Lease> current = read(image);
            Lease next = change.apply(current.value(), clock.millis());
            if (write(image, current, next, moves)) {
                return next;
            }
        }
        throw raced(image);
    }

    /** What one attempt to take the write lease found. */
    public sealed interface Acquisition {
        /** The caller holds the lease, at a new epoch. */
        record Granted(Lease lease) implements Acquisition {}

        /**
         * Another site holds {@code lease}, live at {@code now}; {@code changed} completes at
         * the lease's next change when a watch was asked for, else never.
         */
        record Held(Lease lease, long now, CompletableFuture<Void> changed) implements Acquisition {}
    }

    /**
     * The write lease for {@code site} with a new epoch when nobody holds it, it expired, or
     * the site holds it already; else what holds it, watched when {@code watch}.
     */
    public Acquisition acquire(String image, String site, boolean watch) {
        CompletableFuture<Void> changed = new CompletableFuture<>();
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            Versioned<Lease> current = watch ? readWatched(image, changed) : read(image);
            long now = clock.millis();
            if (current.value().activeAt(now) && !current.value().holder().equals(site)) {
                return new Acquisition.Held(current.value(), now, changed);
            }
            Lease granted = current.value().grantTo(site, now, ttlMillis);
            if (write(image, current, granted, this::recordGrant)) {
                if (current.value().held() && !current.value().activeAt(now)) {
                    metrics.leaseExpired();
                    log.info("{}: lease to {} (epoch {}); the lease of {} (epoch {}) expired {} s ago", image, site, granted.epoch(),
                            current.value().holder(), current.value().epoch(),
                            Lease.seconds(now - current.value().expiresEpochMillis()));
                } else {
                    log.info("{}: lease to {} (epoch {})", image, site, granted.epoch());
                }
                return new Acquisition.Granted(granted);
            }
        }
        throw raced(image);
    }

    /**
     * Adds to {@code transaction}, which replaces lease {@code current} by {@code next}, the
     * count of the move when {@code next} is a new grant: read now, written only if the
     * moves znode is still as read, so a move counts once, with the grant that made it.
     */
    public void recordGrant(Transaction transaction, String image, Lease current, Lease next) {
        if (next.held() && next.grantEpoch() != current.grantEpoch()) {
            recordMoves(transaction, image, moves -> moves.grantedTo(next.holder()));
        }
    }

    /** Adds {@code change} of the moves znode as read now to {@code transaction}, written only if it is still as read. */
    private void recordMoves(Transaction transaction, String image, UnaryOperator<LeaseMoves> change) {
        String path = layout.image(image).moves();
        Optional<Versioned<LeaseMoves>> moves = zk.readJson(path, LeaseMoves.class);
        LeaseMoves after = change.apply(moves.map(Versioned::value).orElse(LeaseMoves.NONE));
        if (moves.isEmpty()) {
            transaction.create(path, Json.write(after));
        } else if (!after.equals(moves.get().value())) {
            transaction.setData(path, Json.write(after), moves.get().version());
        }
    }

    public Lease renew(String image, String site, long epoch) {
        return update(image, (current, now) -> {
            current.checkWriter(image, site, epoch, now, true);
            return current.renewed(now, ttlMillis);
        });
    }

    /**
     * Moves the live lease {@code site} holds at {@code epoch} to the next epoch of the same
     * holding, renewed: the holder's version counter nears its limit. A retry whose first
     * attempt went through (its reply was lost) finds the lease one epoch on and only renews it.
     */
    public Lease advance(String image, String site, long epoch) {
        Lease lease = update(image, (current, now) -> {
            if (current.heldAt(site, epoch) && current.epoch() == epoch + 1 && !current.broken()) {
                return current.renewed(now, ttlMillis);
            }
            current.checkWriter(image, site, epoch, now, true);
            return current.advanced(now, ttlMillis);
        });
        log.info("{}: lease of {} advanced to epoch {} (granted at epoch {})", image, site, lease.epoch(), lease.grantEpoch());
        return lease;
    }

    /**
     * Records that {@code sites} take the sync copies of the writes of {@code site}'s live
     * holding (see {@link Lease#syncSites()}); a set recorded already changes nothing.
     */
    public Lease recordSyncSites(String image, String site, long epoch, List<String> sites) {
        if (sites.isEmpty() || sites.contains(site)) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "image '" + image + "': site " + site
                    + " may record only other sites as taking its sync copies, and at least one, not " + sites);
        }
        Lease lease = update(image, (current, now) -> {
            current.checkHolding(image, site, epoch, now);
            return current.withSyncSites(sites);
        });
        log.info("{}: sync copies of {} (epoch {}) go to {}", image, site, epoch, sites);
        return lease;
    }

    /** Gives the lease up; an expired lease may still be released by its holder. */
    public Lease release(String image, String site, long epoch) {
        Lease lease = update(image, (current, now) -> {
            current.checkWriter(image, site, epoch, now, false);
            return current.released();
        });
        log.info("{}: lease released by {} (epoch {})", image, site, epoch);
        return lease;
    }

    private boolean write(String image, Versioned<Lease> current, Lease next, MovesChange moves) {
        if (next.equals(current.value())) {
            return true;
        }
        Transaction transaction = new Transaction().setData(layout.image(image).lease(), Json.write(next), current.version());
        moves.add(transaction, image, current.value(), next);
        return zk.commit(transaction).committed();
    }

    /** How many images have a write lease held and live now. */
    public int countActive() {
        List<String> paths = zk.children(layout.images()).stream().map(image -> layout.image(image).lease()).toList();
        List<Optional<byte[]>> leases = zk.readAll(paths);
        long now = clock.millis();
        int active = 0;
        for (int i = 0; i < paths.size(); i++) {
            if (leases.get(i).isPresent() && Json.read(leases.get(i).get(), Lease.class, paths.get(i)).activeAt(now)) {
                active++;
            }
        }
        return active;
    }

    private static HeliotropeException raced(String image) {
        return new HeliotropeException(ErrorCode.STORAGE_FAILURE,
                "image '" + image + "': the lease changed " + MAX_ATTEMPTS + " times while being updated; try again");
    }

    /**
     * Step 1 of a handoff: {@code from} holds a live lease, which a final flush will move to
     * {@code to} if it comes within the prepare TTL; preparing the same move again renews it.
     * Refused with {@code LEASE_HELD} while a live prepare names another site. A prepare that
     * arrives after the move (a renewal behind the final flush) answers the lease as it is.
     */
    public Lease prepare(String image, String from, String to) {
        if (from.equals(to)) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "image '" + image + "': cannot move the lease from " + from + " to itself");
        }
        Lease lease = update(image, (current, now) -> {
            if (current.holder().equals(to) && current.handedFrom().equals(from)) {
                return current;
            }
            if (current.activeAt(now) && !current.holder().equals(from)) {
                throw current.heldError(image, now);
            }
            if (!current.activeAt(now)) {
                throw new HeliotropeException(ErrorCode.STALE_LEASE, "image '" + image + "': site " + from + " holds no live write lease to hand over");
            }
            if (current.preparedAt(now) && !current.movingTo().equals(to)) {
                throw new HeliotropeException(ErrorCode.LEASE_HELD, "image '" + image + "': the lease of " + from + " is prepared to move to "
                        + current.movingTo() + " (" + Lease.seconds(current.movingExpiresEpochMillis() - now)
                        + " s left); it cannot move to " + to + " before that handoff is cancelled or lapses");
            }
            return current.preparing(to, now, prepareTtlMillis);
        });
        log.info("{}: lease of {} to move to {} (epoch {})", image, from, to, lease.epoch());
        return lease;
    }

    /**
     * Rolls a handoff from {@code from} to {@code to} back, before its commit point. Moved
     * already (held by {@code to}, handed from {@code from}): the lease goes back to
     * {@code from} as a new grant, and in the same transaction the move it counted is taken
     * back, the grant back counting none. Not moved (held by {@code from}, prepared to move
     * to {@code to}): the prepare is cleared and the holding moves to its next epoch, which
     * fences a final flush still on its way. Moved and then released by {@code to} before the
     * handoff completed (its guest never ran there: the destination died before its resume),
     * the lease goes back to {@code from} as a new grant, as when {@code to} still held it. A
     * retry whose first attempt went through finds
     * the lease at {@code from} with nothing prepared or handed, and answers it as it is.
     * Refused once the handoff was completed, or when the lease is elsewhere.
     */
    public Lease cancelHandoff(String image, String from, String to) {
        Lease lease = update(image, (current, now) -> {
            if ((current.holder().equals(to) || !current.held()) && current.handedFrom().equals(from)) {
                return current.grantTo(from, now, ttlMillis);
            }
            if (current.holder().equals(from) && current.movingTo().equals(to)) {
                return current.unprepared().advanced(now, ttlMillis);
            }
            if (current.holder().equals(from) && current.movingTo().isEmpty() && current.handedFrom().isEmpty()) {
                return current;
            }
            if (current.holder().equals(to) && current.handedFrom().isEmpty()) {
                throw new HeliotropeException(ErrorCode.IMAGE_IN_USE, "image '" + image + "': the handoff to " + to
                        + " was completed at epoch " + current.epoch() + "; it cannot be rolled back");
            }
            throw new HeliotropeException(ErrorCode.STALE_LEASE, "image '" + image + "': no handoff from " + from + " to " + to
                    + " to roll back: the lease is " + current.describe()
                    + (current.movingTo().isEmpty() ? "" : ", prepared to move to " + current.movingTo())
                    + (current.handedFrom().isEmpty() ? "" : ", handed from " + current.handedFrom()));
        }, (transaction, name, current, next) -> {
            if (next.grantEpoch() != current.grantEpoch()) {
                recordMoves(transaction, name, moves -> moves.undone(from, to));
            }
        });
        log.info("{}: handoff from {} to {} rolled back: lease at {} (epoch {})", image, from, to, lease.holder(), lease.epoch());
        return lease;
    }

    /**
     * Records that the handoff from {@code from} to {@code to} committed (the destination
     * resumed): it can no longer be rolled back. Done already, it answers the lease as it is.
     */
    public Lease completeHandoff(String image, String from, String to) {
        Lease lease = update(image, (current, now) -> {
            if (current.holder().equals(to) && (current.handedFrom().equals(from) || current.handedFrom().isEmpty())) {
                return current.completed();
            }
            throw new HeliotropeException(ErrorCode.STALE_LEASE, "image '" + image + "': no handoff from " + from + " to " + to
                    + " to complete: the lease is " + current.describe()
                    + (current.handedFrom().isEmpty() ? "" : ", handed from " + current.handedFrom()));
        });
        log.info("{}: handoff from {} to {} completed (epoch {})", image, from, to, lease.epoch());
        return lease;
    }

    /**
     * Ends the lease {@code site} holds at {@code epoch} now, as if it had expired: the
     * holder is dead, an operator says. The next open takes a new epoch, and a sync holding's
     * copies are owed as for an expired one. Refused unless that is the lease.
     */
    public Lease breakLease(String image, String site, long epoch) {
        Lease lease = update(image, (current, now) -> {
            current.checkWriter(image, site, epoch, now, false);
            return current.brokenAt(now);
        });
        log.warn("{}: lease of {} (epoch {}) broken", image, site, epoch);
        return lease;
    }
}
