package io.heliotrope.storage.propagation;

import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.Replication;
import io.heliotrope.storage.peer.Peers.ImageRef;
import io.heliotrope.storage.propagation.PropagationManager.Backlog;

import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;

import static java.util.Objects.requireNonNull;

/**
 * Propagation of one image open for write at this site: read and write counts per block,
 * the queue of blocks written since they were last pushed, and the pusher that sends them
 * away by priority (DESIGN.md section 6). It counts while the image stays open; once it
 * closes, what is queued is still pushed, and then it ends.
 *
 * <p>{@link #recordRead} and {@link #recordWrite} are for the I/O path: thread-safe, they
 * hold the image's lock for at most {@value #CHUNK} blocks at a time and allocate nothing
 * per block once the counts' tables have grown. Nothing here blocks on the network or
 * the store.
 */
public final class ImagePropagation implements AutoCloseable {
    /** Blocks counted per hold of the lock, so a 32 MiB request never keeps the pusher waiting long. */
    private static final int CHUNK = 256;

    private final ImageInfo image;
    private final PropagationMetrics metrics;
    private final Clock clock;
    private final int trackedBlocks;
    private final Consumer<ImagePropagation> onEnd;
    private final Object lock = new Object();
    private final AccessStats stats = new AccessStats();
    private final PushQueue queue;
    private final Arrivals arrivals;
    private final Pusher pusher;
    private final AtomicLong sentBytes = new AtomicLong();
    /** The image closed here: nothing more is counted. */
    private boolean closed;
    /** Nothing more is pushed: what was queued is dropped. */
    private boolean ended;

    /** @param onEnd called once it ends: it pushes nothing more */
    ImagePropagation(ImageInfo image, Replication replication, PushGuard guard, PushContext context, RandomGenerator random,
            Consumer<ImagePropagation> onEnd) {
        this.image = requireNonNull(image, "image is null");
        requireNonNull(replication, "replication is null");
        this.metrics = context.metrics();
        this.clock = context.clock();
        this.trackedBlocks = context.config().trackedBlocks();
        this.onEnd = requireNonNull(onEnd, "onEnd is null");
        this.queue = new PushQueue(stats, replication.k(), replication.s());
        this.arrivals = new Arrivals(queue);
        this.pusher = new Pusher(this, image, context, random, requireNonNull(guard, "guard is null"));
        pusher.tune(replication);
    }

    /** Counts a read of {@code count} blocks from {@code firstBlock}. */
    public void recordRead(long firstBlock, long count) {
        for (long block = firstBlock, end = firstBlock + count; block < end; ) {
            boolean pushable;
            synchronized (lock) {
                if (closed) {
                    return;
                }
                for (long chunkEnd = Math.min(end, block + CHUNK); block < chunkEnd; block++) {
                    int entry = stats.size() < trackedBlocks ? stats.entry(block) : stats.find(block);
                    if (entry >= 0) {
                        stats.addRead(entry);
                        queue.changed(entry);
                    }
                }
                pushable = queue.hasPushable();
            }
            if (pushable) {
                pusher.offer();
            }
        }
    }

    /**
     * Counts a write (or zeroing) of {@code count} blocks from {@code firstBlock} and queues
     * them to be pushed. Call it once the write is in the store, where the pusher reads the
     * version it sends: a block counted before its write is stored could go out at its older
     * version and never again.
     */
    public void recordWrite(long firstBlock, long count) {
        // When blocks are queued: read from the clock once, at the first block queued anew (a hot block written again costs no look).
        long now = 0;
        for (long block = firstBlock, end = firstBlock + count; block < end; ) {
            boolean pushable;
            int added = 0;
            synchronized (lock) {
                if (closed) {
                    return;
                }
                for (long chunkEnd = Math.min(end, block + CHUNK); block < chunkEnd; block++) {
                    int entry = stats.entry(block);
                    stats.addWrite(entry);
                    if (queue.add(entry)) {
                        now = now == 0 ? clock.millis() : now;
                        arrivals.add(entry, now);
                        added++;
                    }
                }
                pushable = queue.hasPushable();
            }
            metrics.queued(added);
            if (pushable) {
                pusher.offer();
            }
        }
    }

    /** Applies the image's current mode, K, S, cap, budget and transition row from now on. */
    public void update(Replication replication) {
        synchronized (lock) {
            queue.retune(replication.k(), replication.s());
        }
        pusher.tune(replication);
    }

    /**
     * The image closed here (the session has flushed): counting stops, and the blocks still
     * queued are pushed as they would have been, then it ends. A block queued at the close is
     * the one most likely missing where the image opens next: the last writes before a move.
     * Blocks that only more reads would have let go, and those whose version the guard holds
     * back now, are dropped: neither can change any more.
     */
    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        pusher.drain();
    }

    /**
     * {@code site} pulls what it lacks of the image now: once closed here, the image is
     * pushed there no more (the drain of its last blocks goes to the row's other sites, if any).
     */
    void yield(String site) {
        if (closed()) {
            pusher.yield(site);
        }
    }

    /** Whether this is the propagation of {@code ref}: the copy of that identity here, or of that name when it has none. */
    boolean isOf(ImageRef ref) {
        return image.identity() != null ? image.identity().equals(ref.identity()) : image.name().equals(ref.name());
    }

    /** Block bytes sent so far (data and headers), pushes that failed included. */
    public long sentBytes() {
        return sentBytes.get();
    }

    void sent(long bytes) {
        sentBytes.addAndGet(bytes);
    }

    /** Blocks queued and not pushed yet. */
    public long backlogBlocks() {
        return queued();
    }

    /** Stops pushing: what is still queued is dropped, and pushes under way finish on their own. */
    public void end() {
        synchronized (lock) {
            if (ended) {
                return;
            }
            closed = true;
            ended = true;
            metrics.queued(-queue.size());
        }
        pusher.stop();
        onEnd.accept(this);
    }

    boolean closed() {
        synchronized (lock) {
            return closed;
        }
    }

    /** Blocks queued to be pushed. */
    int queued() {
        synchronized (lock) {
            return queue.size();
        }
    }

    ImageInfo image() {
        return image;
    }

    /**
     * The blocks waiting to be pushed and how long the one queued first has waited. Those
     * whose reads do not call for a push yet count too: they wait for reads. None waits while
     * the image is not pushed at all (another mode, no site to push to).
     */
    Backlog backlog() {
        if (!pusher.pushes()) {
            return Backlog.NONE;
        }
        synchronized (lock) {
            long oldest = arrivals.oldest();
            return ended || oldest < 0 ? Backlog.NONE : new Backlog(queue.size(), Duration.ofMillis(Math.max(0, clock.millis() - oldest)));
        }
    }

    boolean hasPushable() {
        synchronized (lock) {
            return !ended && queue.hasPushable();
        }
    }

    /** Takes up to {@code most} blocks of the highest priority off the queue. */
    long[] take(int most) {
        long[] blocks = new long[most];
        int taken = 0;
        synchronized (lock) {
            for (int entry; taken < most && !ended && (entry = queue.poll()) >= 0; taken++) {
                blocks[taken] = stats.block(entry);
            }
        }
        metrics.queued(-taken);
        return taken == most ? blocks : Arrays.copyOf(blocks, taken);
    }

    /**
     * Queues blocks again after a push that failed, or that the guard held back; those written
     * meanwhile are queued already. They count as queued now: their wait starts over.
     */
    void putBack(long[] blocks) {
        long now = clock.millis();
        int added = 0;
        synchronized (lock) {
            if (ended) {
                return;
            }
            for (long block : blocks) {
                int entry = stats.entry(block);
                if (queue.add(entry)) {
                    arrivals.add(entry, now);
                    added++;
                }
            }
        }
        metrics.queued(added);
    }
}
