package io.heliotrope.controller.metadata;

import io.heliotrope.controller.lease.Lease;
import io.heliotrope.controller.lease.LeaseManager;
import io.heliotrope.controller.zookeeper.ImagePaths;
import io.heliotrope.controller.zookeeper.Json;
import io.heliotrope.controller.zookeeper.MultiOutcome;
import io.heliotrope.controller.zookeeper.Transaction;
import io.heliotrope.controller.zookeeper.Versioned;
import io.heliotrope.controller.zookeeper.ZooKeeperStore;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.Optional;
import java.util.UUID;

import static java.util.Objects.requireNonNull;

/**
 * Commits a flush: encodes the delta, stages it when large, then one transaction writes
 * the lease (the version check fences a stale writer; the write extends, releases or
 * moves it, a move counted in {@code moves}), bumps {@code meta} (which orders commits) and creates {@code log/<seq>}.
 * A lost race re-reads and tries again; a retry after a lost connection first looks for
 * its own record, so a commit that went through is not applied twice. Commits to one
 * image queue up in this process (they could only succeed one at a time anyway), so
 * races are left to flushes arriving through different controllers.
 */
final class FlushCommitter {
    private static final Logger log = LoggerFactory.getLogger(FlushCommitter.class);
    private static final int MAX_ATTEMPTS = 16;
    private static final int STRIPES = 64;

    private final ZooKeeperStore zk;
    private final LeaseManager leases;
    private final MetadataReader reader;
    private final PayloadStore payloads;
    private final Clock clock;
    private final Object[] stripes = new Object[STRIPES];

    FlushCommitter(ZooKeeperStore zk, LeaseManager leases, MetadataReader reader, PayloadStore payloads, Clock clock) {
        this.zk = requireNonNull(zk, "zk is null");
        this.leases = requireNonNull(leases, "leases is null");
        this.reader = requireNonNull(reader, "reader is null");
        this.payloads = requireNonNull(payloads, "payloads is null");
        this.clock = requireNonNull(clock, "clock is null");
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Object();
        }
    }

    Flushed commit(Flush flush, ImagePaths paths, long imageBlocks, String remoteHome) {
        Lease lease = leases.read(flush.image()).value();
        Optional<Flushed> again = committedAlready(flush, paths, lease);
        if (again.isPresent()) {
            return again.get();
        }
        check(flush, lease, clock.millis());
        flush.check(imageBlocks, remoteHome, lease);
        if (flush.entries().size() == 0) {
            return leaseOnly(flush, paths);
        }
        byte[] payload = EntriesCodec.encode(flush.entries(), EntriesCodec.Effort.FAST);
        PayloadStore.Placement placement = payloads.place(paths, payload, flush.site());
        try {
            synchronized (stripes[Math.floorMod(flush.image().hashCode(), STRIPES)]) {
                return commit(flush, paths, payload.length, placement);
            }
        } catch (RuntimeException e) {
            payloads.discard(paths, placement);
            throw e;
        }
    }

    /**
     * What an attempt of a flush with an id answers when an earlier attempt went through (its
     * reply lost, the site asks again, maybe at another controller): the image's last delta
     * carries the id, or a release finds the lease released at its epoch. The holder's flushes
     * go one at a time, so its earlier attempt is the last delta (unless compaction has folded
     * it away meanwhile: applying the same entries again then changes nothing but the metaSeq).
     */
    private Optional<Flushed> committedAlready(Flush flush, ImagePaths paths, Lease lease) {
        if (flush.id().isEmpty()) {
            return Optional.empty();
        }
        MetaState meta = reader.meta(flush.image(), paths).value();
        boolean wentThrough = flush.entries().size() == 0
                ? flush.release() && !lease.held() && lease.epoch() == flush.epoch()
                : meta.metaSeq() > 0 && isOwn(paths, meta.metaSeq(), flush.id());
        if (!wentThrough) {
            return Optional.empty();
        }
        log.info("{}: flush {} of site {} (epoch {}) went through before; answered again, not applied twice (metaSeq {})",
                flush.image(), flush.id(), flush.site(), flush.epoch(), meta.metaSeq());
        return Optional.of(new Flushed(meta.metaSeq(), flush.entries().size(), lease, meta));
    }

    private Flushed commit(Flush flush, ImagePaths paths, int payloadBytes, PayloadStore.Placement placement) {
        String commitId = flush.id().isEmpty() ? UUID.randomUUID().toString() : flush.id();
        long attempted = 0;
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            Versioned<Lease> lease = leases.read(flush.image());
            Versioned<MetaState> meta = reader.meta(flush.image(), paths);
            if (attempted > 0 && meta.value().metaSeq() >= attempted && isOwn(paths, attempted, commitId)) {
                return new Flushed(attempted, flush.entries().size(), lease.value(), meta.value());
            }
            long now = clock.millis();
            check(flush, lease.value(), now);
            Lease next = next(flush, lease.value(), now);
            long seq = meta.value().metaSeq() + 1;
            byte[] record = new RecordHeader(seq, commitId, flush.site(), flush.epoch(), flush.entries().size(), payloadBytes,
                    placement.staging(), placement.chunks()).encode(placement.inline());
            MetaState committed = meta.value().committed(record.length + (long) placement.stagedBytes());
            Transaction transaction = new Transaction()
                    .setData(paths.lease(), Json.write(next), lease.version())
                    .setData(paths.meta(), Json.write(committed), meta.version())
                    .create(paths.log(seq), record);
            leases.recordGrant(transaction, flush.image(), lease.value(), next);
            int claim = transaction.size();
            payloads.claim(transaction, paths, placement);
            MultiOutcome outcome = zk.commit(transaction);
            if (outcome.committed()) {
                logCommit(flush, seq, next, record.length + placement.stagedBytes());
                return new Flushed(seq, flush.entries().size(), next, committed);
            }
            if (outcome.failedAt(claim)) {
                throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "image '" + flush.image() + "': the staged delta of site "
                        + flush.site() + " was swept before it could be committed; flush again");
            }
            attempted = seq;
        }
        throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "image '" + flush.image() + "': flush of site " + flush.site()
                + " lost " + MAX_ATTEMPTS + " races to concurrent updates; try again");
    }

    /** An empty delta commits nothing but still checks, extends, releases or moves the lease. */
    private Flushed leaseOnly(Flush flush, ImagePaths paths) {
        Lease next = leases.update(flush.image(), (current, now) -> {
            check(flush, current, now);
            return next(flush, current, now);
        });
        logLease(flush, next);
        MetaState meta = reader.meta(flush.image(), paths).value();
        return new Flushed(meta.metaSeq(), 0, next, meta);
    }

    private static void check(Flush flush, Lease lease, long now) {
        lease.checkWriter(flush.image(), flush.site(), flush.epoch(), now, true);
        if (flush.recovery() && !lease.recovery().pending()) {
            // A retry of a recovery flush that went through lands here too: its entries are committed.
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "image '" + flush.image() + "': site " + flush.site()
                    + " sent a recovery flush, but no recovery is pending");
        }
        if (!flush.moveTo().isEmpty()) {
            lease.checkMove(flush.image(), flush.moveTo(), now);
        }
    }

    private Lease next(Flush flush, Lease lease, long now) {
        if (flush.release()) {
            return lease.released();
        }
        if (!flush.moveTo().isEmpty()) {
            return lease.movedTo(flush.moveTo(), now, leases.ttlMillis());
        }
        return flush.recovery() ? lease.recovered(now, leases.ttlMillis()) : lease.renewed(now, leases.ttlMillis());
    }

    private boolean isOwn(ImagePaths paths, long seq, String commitId) {
        return reader.logHeader(paths, seq).map(header -> header.commit().equals(commitId)).orElse(false);
    }

    private static void logCommit(Flush flush, long seq, Lease lease, long bytes) {
        log.debug("{}: delta {} of {} blocks from {} (epoch {}, {} bytes)", flush.image(), seq, flush.entries().size(), flush.site(), flush.epoch(), bytes);
        logLease(flush, lease);
    }

    private static void logLease(Flush flush, Lease lease) {
        if (flush.recovery()) {
            log.info("{}: recovered {} blocks of dead epochs from sync sites, committed by {} (epoch {})",
                    flush.image(), flush.entries().size(), flush.site(), flush.epoch());
        } else if (flush.release()) {
            log.info("{}: lease released by {} (epoch {})", flush.image(), flush.site(), flush.epoch());
        } else if (!flush.moveTo().isEmpty()) {
            log.info("{}: lease moved from {} to {} (epoch {})", flush.image(), flush.site(), lease.holder(), lease.epoch());
        }
    }
}
