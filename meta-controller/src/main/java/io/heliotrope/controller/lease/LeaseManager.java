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

import static java.util.Objects.requireNonNull;

/**
 * Grants, renews, releases and prepares write leases. Every change is a compare-and-set
 * on the lease znode's version: of two controllers racing, one wins and the other
 * re-reads and decides again on what it finds. A grant counts the lease's move from its
 * last holder in the same transaction ({@link LeaseMoves}).
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
    private final ControllerMetrics metrics;

    public LeaseManager(ZooKeeperStore zk, ZooKeeperLayout layout, Clock clock, Duration ttl, ControllerMetrics metrics) {
        this.zk = requireNonNull(zk, "zk is null");
        this.layout = requireNonNull(layout, "layout is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.ttlMillis = ttl.toMillis();
        this.metrics = requireNonNull(metrics, "metrics is null");
    }

    public long ttlMillis() {
        return ttlMillis;
    }

    public Versioned<Lease> read(String image) {
        return zk.readJson(layout.image(ImageNames.check(image)).lease(), Lease.class).orElseThrow(() -> Names.imageNotFound(image));
    }

    /** Applies {@code change} with compare-and-set, re-reading after a lost race. */
    public Lease update(String image, Change change) {
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            Versioned<Lease> current = read(image);
            Lease next = change.apply(current.value(), clock.millis());
            if (write(image, current, next)) {
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
        String path = layout.image(ImageNames.check(image)).lease();
        CompletableFuture<Void> changed = new CompletableFuture<>();
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            Versioned<Lease> current = watch
                    ? zk.readJsonWatched(path, Lease.class, changed).orElseThrow(() -> Names.imageNotFound(image))
                    : read(image);
            long now = clock.millis();
            if (current.value().activeAt(now) && !current.value().holder().equals(site)) {
                return new Acquisition.Held(current.value(), now, changed);
            }
            Lease granted = current.value().grantTo(site, now, ttlMillis);
            if (write(image, current, granted)) {
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
        if (!next.held() || next.grantEpoch() == current.grantEpoch()) {
            return;
        }
        String path = layout.image(image).moves();
        Optional<Versioned<LeaseMoves>> moves = zk.readJson(path, LeaseMoves.class);
        LeaseMoves after = moves.map(Versioned::value).orElse(LeaseMoves.NONE).grantedTo(next.holder());
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
            if (current.heldAt(site, epoch) && current.epoch() == epoch + 1 && current.activeAt(now)) {
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

    private boolean write(String image, Versioned<Lease> current, Lease next) {
        if (next.equals(current.value())) {
            return true;
        }
        Transaction transaction = new Transaction().setData(layout.image(image).lease(), Json.write(next), current.version());
        recordGrant(transaction, image, current.value(), next);
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

    /** Step 1 of a handoff: {@code from} holds a live lease, which a final flush will move to {@code to}. */
    public Lease prepare(String image, String from, String to) {
        if (from.equals(to)) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "image '" + image + "': cannot move the lease from " + from + " to itself");
        }
        Lease lease = update(image, (current, now) -> {
            if (current.activeAt(now) && !current.holder().equals(from)) {
                throw current.heldError(image, now);
            }
            if (!current.activeAt(now)) {
                throw new HeliotropeException(ErrorCode.STALE_LEASE, "image '" + image + "': site " + from + " holds no live write lease to hand over");
            }
            return current.preparing(to);
        });
        log.info("{}: lease of {} to move to {} (epoch {})", image, from, to, lease.epoch());
        return lease;
    }
}
