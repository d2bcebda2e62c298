package io.heliotrope.storage.status;

import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.BlockStore.ImageUsage;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.image.ImageExports;
import io.heliotrope.storage.image.ImageExports.InUse;
import io.heliotrope.storage.view.ImageSession;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * The blocks of each image in the store: data, zero markers and dirty ones. Counting them
 * walks the image's index and its dirty set, one entry per block after random writes, too
 * slow for every status call on a large store (the controller asks every few seconds). So a
 * census of every image runs on its own executor when asked, at most once per
 * {@link #MIN_INTERVAL} and never more often than ten times its own duration (it takes at
 * most a tenth of its thread), and callers get the last census that finished: only the first
 * call waits. The counts are as old as the census, a few seconds at most on a small store.
 */
final class StoreCensus {
    static final Duration MIN_INTERVAL = Duration.ofSeconds(1);
    private static final int COST_FACTOR = 10;

    /** An image's counts in the store, with its identity ({@link ImageInfo#identity()}, may be null). */
    record Counts(UUID identity, long dataBlocks, long zeroBlocks, long dirtyBlocks) {}

    private record Census(Map<String, Counts> counts, long startedNanos, long tookNanos) {}

    private final BlockStore store;
    private final ImageExports exports;
    private final ExecutorService executor;
    private final LongSupplier nanoClock;
    /** The last census that finished, and the one under way; guarded by this. */
    private Census last;
    private CompletableFuture<Census> running;

    /** @param executor runs the census: a thread of its own, so no store or admin call waits behind it */
    StoreCensus(BlockStore store, ImageExports exports, ExecutorService executor, LongSupplier nanoClock) {
        this.store = requireNonNull(store, "store is null");
        this.exports = requireNonNull(exports, "exports is null");
        this.executor = requireNonNull(executor, "executor is null");
        this.nanoClock = requireNonNull(nanoClock, "nanoClock is null");
    }

    /** Each image's counts by name, as the last census found them; starts a new census when one is due. */
    synchronized CompletableFuture<Map<String, Counts>> latest() {
        CompletableFuture<Census> census = running;
        if (census == null && (last == null || nanoClock.getAsLong() - last.startedNanos >= Math.max(MIN_INTERVAL.toNanos(), COST_FACTOR * last.tookNanos))) {
            census = BoundedExecutors.supplyAsync(this::take, executor, "the site's status");
            running = census;
            // A census the executor refused has ended already, and running is null again.
            census.whenComplete((taken, failure) -> finished(taken));
        }
        return last != null ? CompletableFuture.completedFuture(last.counts) : census.thenApply(Census::counts);
    }

    /** A census ended: {@code taken} is null when it failed, and the next call tries again. */
    private synchronized void finished(Census taken) {
        running = null;
        if (taken != null) {
            last = taken;
        }
    }

    private Census take() {
        long started = nanoClock.getAsLong();
        Map<String, ImageSession> open = exports.inUse().stream()
                .filter(use -> use.session() != null)
                .collect(Collectors.toMap(InUse::name, InUse::session));
        Map<String, Counts> counts = new TreeMap<>();
        for (ImageInfo image : store.listImages()) {
            try {
                ImageUsage usage = store.usage(image.id());
                ImageSession session = open.get(image.name());
                // An open image's unflushed writes are its session's: in the store, or in memory at a remote image's home.
                long dirty = session != null && session.info().id() == image.id() ? session.unflushedBlocks() : store.dirtyBlocks(image.id()).size();
                counts.put(image.name(), new Counts(image.identity(), usage.dataBlocks(), usage.zeroBlocks(), dirty));
            } catch (HeliotropeException e) {
                if (e.code() != ErrorCode.IMAGE_NOT_FOUND) {
                    throw e;
                }
                // Removed since the list: not counted.
            }
        }
        return new Census(counts, started, nanoClock.getAsLong() - started);
    }
}
