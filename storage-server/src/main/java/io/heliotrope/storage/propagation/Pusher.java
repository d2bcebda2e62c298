package io.heliotrope.storage.propagation;

import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.concurrent.CoalescedSteps;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.Replication;
import io.heliotrope.storage.peer.Peers.ImageRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;

/**
 * Sends an image's queued blocks away: takes a batch of the highest priority for a site
 * drawn from the transition row, reads the blocks at their current versions, and pushes
 * them, with several pushes under way so the round trip does not bound the rate. Within
 * the image's cap and budget; away from sites whose pushes failed lately or went unanswered
 * ({@link PeerBackoff}). A push without an answer in time is late: it leaves its place among
 * the pushes in flight to others and goes on until its deadline, so that when a cut link heals
 * what it carries lands once, and its answer is what tells the pushers that the site is back.
 *
 * <p>Its steps run on the scheduler, one at a time ({@link #signal()} coalesces requests
 * for a step); it waits on a timer after drawing "not now", behind a site's backoff or at
 * the cap, and sleeps when nothing can go until a write, a read or a change wakes it. Once
 * the image has closed, nothing wakes it that way: when nothing can go and no push is under
 * way or held back, it ends the image's propagation.
 */
final class Pusher {
    /** What a copy costs besides its data: its block number and version as they travel. */
    static final long COPY_HEADER_BYTES = 16;
    private static final long DATA_COPY_BYTES = BLOCK_SIZE + COPY_HEADER_BYTES;
    private static final Logger log = LoggerFactory.getLogger(Pusher.class);
    /** How long a block the guard held back waits before it is taken again: a checkpoint commits within a few seconds. */
    private static final Duration HELD_BACK = Duration.ofSeconds(1);

    private final ImagePropagation blocks;
    private final ImageInfo image;
    private final ImageRef ref;
    private final PushContext context;
    private final RandomGenerator random;
    private final RateLimiter limiter;
    private final PushGuard guard;
    private final AtomicInteger inFlight = new AtomicInteger();
    /** Pushes under way that were late: out of {@link #inFlight}, still holding their blocks. */
    private final AtomicInteger lateUnderWay = new AtomicInteger();
    /** Pushes whose blocks the guard held back, waiting to be queued again. */
    private final AtomicInteger heldBack = new AtomicInteger();
    private final CoalescedSteps steps;
    /** Whether the pusher waits for a write or read to wake it (not for a timer or a push). */
    private final AtomicBoolean idle = new AtomicBoolean(true);
    /** The sites that pull the image themselves: nothing more goes there. */
    private final Set<String> yielded = ConcurrentHashMap.newKeySet();
    private volatile Destinations destinations;
    private volatile boolean enabled;
    private volatile boolean stopped;
    /** The next timer and when it fires; used by steps only. */
    private ScheduledFuture<?> timer;
    private long timerAt;

    Pusher(ImagePropagation blocks, ImageInfo image, PushContext context, RandomGenerator random, PushGuard guard) {
        this.blocks = blocks;
        this.guard = guard;
        this.image = image;
        this.ref = ImageRef.of(image);
        this.context = context;
        this.random = random;
        this.limiter = new RateLimiter(context.clock(), 0, 0);
        this.steps = new CoalescedSteps(context.scheduler(), this::step, () -> refused("a step"));
    }

    /** The bytes that pushing {@code copies} sends: data for data blocks, only a header for zero markers. */
    static long cost(List<Copy> copies) {
        return copies.stream().mapToLong(copy -> copy.zero() ? COPY_HEADER_BYTES : DATA_COPY_BYTES).sum();
    }

    synchronized void tune(Replication replication) {
        long cap = replication.bandwidthBytesPerSecond();
        long budget = replication.budgetBytesPerDay();
        limiter.limits(cap, budget);
        destinations = new Destinations(context.site(), replication.row(context.site())).without(yielded);
        enabled = replication.mode() == Replication.Mode.PROACTIVE && destinations.pushes() && limiter.fits(DATA_COPY_BYTES);
        idle.set(false);
        signal();
    }

    /** Whether it pushes: the image is proactive, with a site to push to and a cap that lets a block through. */
    boolean pushes() {
        return enabled;
    }

    /** Wakes the pusher if it sleeps: blocks can be pushed. */
    void offer() {
        if (enabled && idle.compareAndSet(true, false)) {
            signal();
        }
    }

    /** The image closed: pushes what is queued, and ends the propagation once nothing is left to push. */
    void drain() {
        idle.set(false);
        signal();
    }

    /**
     * Pushes nothing more to {@code site}, which pulls the image itself: its chance goes to the
     * other sites of the row. With none left, nothing more is pushed, and a closed image's
     * propagation ends once the pushes under way have finished.
     */
    synchronized void yield(String site) {
        if (yielded.add(site)) {
            log.info("{}: pushes to {} stop: it pulls what it lacks", image.name(), site);
            destinations = destinations.without(yielded);
            enabled = enabled && destinations.pushes();
            idle.set(false);
            signal();
        }
    }

    /** Pushes nothing more; those under way finish on their own. */
    void stop() {
        stopped = true;
        signal();
    }

    private void signal() {
        steps.signal();
    }

    /** The scheduler refused a step or a timer: an open image's pushes pause until its next write, a closed image's end. */
    private void refused(String task) {
        idle.set(true);
        if (stopped) {
            return;
        }
        if (blocks.closed()) {
            log.warn("{}: the blocks still queued since the close are dropped: the push scheduler refused {}", image.name(), task);
            blocks.end();
        } else {
            log.warn("{}: pushes pause until the next write: the push scheduler refused {}", image.name(), task);
        }
    }

    private void step() {
        if (stopped) {
            if (timer != null) {
                timer.cancel(false);
            }
            return;
        }
        while (inFlight.get() < context.config().pushesInFlight()) {
            if (!enabled || !blocks.hasPushable()) {
                if (blocks.closed() && inFlight.get() == 0 && lateUnderWay.get() == 0 && heldBack.get() == 0) {
                    blocks.end();
                    return;
                }
                if (sleep()) {
                    return;
                }
                continue;
            }
            // After "not now", and behind a site's backoff, draw again a pause later: another site may be drawn.
            long pause = Math.max(1, context.config().pause().toMillis());
            String site = destinations.sample(random);
            long wait = site == null ? pause : Math.min(pause, context.backoff().millisLeft(site));
            if (wait > 0) {
                wakeIn(wait);
                return;
            }
            long bytes = Math.min(limiter.available(), Math.max(DATA_COPY_BYTES, limiter.quantum()));
            int most = (int) Math.min(context.config().batchBlocks(), bytes / DATA_COPY_BYTES);
            RateLimiter.Grant grant = most == 0 ? null : limiter.tryAcquire(most * DATA_COPY_BYTES);
            if (grant == null) {
                wakeIn(Math.max(1, limiter.millisUntil(DATA_COPY_BYTES)));
                return;
            }
            long[] taken = blocks.take(most);
            limiter.refund(grant, (most - taken.length) * DATA_COPY_BYTES);
            if (taken.length > 0) {
                inFlight.incrementAndGet();
                send(new Push(site, taken), grant);
            }
        }
    }

    /** Goes to sleep until {@link #offer()}; false when there is work after all and the pusher stays awake. */
    private boolean sleep() {
        idle.set(true);
        return !(enabled && blocks.hasPushable() && idle.compareAndSet(true, false));
    }

    private void wakeIn(long millis) {
        long at = context.clock().millis() + millis;
        if (timer != null && !timer.isDone() && timerAt <= at) {
            return;
        }
        if (timer != null) {
            timer.cancel(false);
        }
        try {
            timer = context.scheduler().schedule(this::signal, millis, TimeUnit.MILLISECONDS);
            timerAt = at;
        } catch (RejectedExecutionException e) {
            refused("a timer");
        }
    }

    private void send(Push push, RateLimiter.Grant grant) {
        String site = push.site();
        long[] taken = push.blocks();
        ByteBuffer data = ByteBuffer.allocate(taken.length * BLOCK_SIZE);
        BoundedExecutors.supplyAsync(() -> context.store().readCopies(image.id(), taken, data), context.storeExecutor(), "the propagation of " + image.name())
                .thenCompose(versions -> {
                    List<Copy> copies = guarded(site, copies(versions, data));
                    long cost = cost(copies);
                    limiter.refund(grant, taken.length * DATA_COPY_BYTES - cost);
                    if (copies.isEmpty()) {
                        return CompletableFuture.completedFuture(new Sent(copies, new boolean[0]));
                    }
                    context.metrics().sent(site, cost);
                    blocks.sent(cost);
                    context.backoff().started(site);
                    push.started = true;
                    watch(push);
                    return context.peers().push(site, ref, copies, context.config().pushDeadline()).thenApply(stored -> new Sent(copies, stored));
                })
                .whenComplete((sent, failure) -> finished(push, sent, failure));
    }

    /** Makes {@code push} late if it has no answer in time. */
    private void watch(Push push) {
        try {
            push.lateTimer = context.scheduler().schedule(() -> late(push), context.config().answerWithin().toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            log.debug("{}: a push to {} is not watched for an answer in time: the push scheduler refused a timer", image.name(), push.site());
        }
    }

    private void late(Push push) {
        if (!push.counted.compareAndSet(true, false)) {
            return;
        }
        inFlight.decrementAndGet();
        lateUnderWay.incrementAndGet();
        long wait = context.backoff().missed(push.site());
        context.metrics().late(push.site());
        log.warn("{}: push of {} blocks to {} has no answer after {} ms; pushes there wait {} ms, and this one goes on until its deadline",
                image.name(), push.blocks().length, push.site(), context.config().answerWithin().toMillis(), wait);
        signal();
    }

    /** The blocks as they are now: data, or a zero marker without data; never-written blocks have nothing to send. */
    private static List<Copy> copies(List<BlockVersion> versions, ByteBuffer data) {
        List<Copy> copies = new ArrayList<>(versions.size());
        for (int i = 0; i < versions.size(); i++) {
            BlockVersion version = versions.get(i);
            if (version.state() != BlockState.UNWRITTEN) {
                ByteBuffer block = version.state() == BlockState.DATA ? data.slice(i * BLOCK_SIZE, BLOCK_SIZE) : null;
                copies.add(new Copy(version.block(), version.version(), block));
            }
        }
        return copies;
    }

    /**
     * The copies the guard lets go to {@code site}; the others go back in the queue a while
     * later, when their version may be committed. Once the image has closed, its session has
     * flushed: a version the guard holds back then is never committed from here, and is dropped.
     */
    private List<Copy> guarded(String site, List<Copy> copies) {
        List<Copy> allowed = new ArrayList<>(copies.size());
        List<Long> held = new ArrayList<>();
        for (Copy copy : copies) {
            if (guard.mayPush(copy, site)) {
                allowed.add(copy);
            } else {
                held.add(copy.block());
            }
        }
        if (held.isEmpty()) {
            return allowed;
        }
        if (blocks.closed()) {
            log.debug("{}: {} blocks not pushed to {}: their versions were not committed by the close", image.name(), held.size(), site);
            return allowed;
        }
        long[] later = held.stream().mapToLong(Long::longValue).toArray();
        heldBack.incrementAndGet();
        try {
            context.scheduler().schedule(() -> {
                blocks.putBack(later);
                heldBack.decrementAndGet();
                signal();
            }, HELD_BACK.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            heldBack.decrementAndGet();
            log.warn("{}: {} blocks wait for their next write: the push scheduler refused a timer", image.name(), later.length);
        }
        return allowed;
    }

    private void finished(Push push, Sent sent, Throwable failure) {
        String site = push.site();
        long[] taken = push.blocks();
        if (push.lateTimer != null) {
            push.lateTimer.cancel(false);
        }
        (push.counted.compareAndSet(true, false) ? inFlight : lateUnderWay).decrementAndGet();
        if (failure == null) {
            if (push.started) {
                context.backoff().answered(site);
            }
            int refused = 0;
            for (boolean stored : sent.stored()) {
                refused += stored ? 0 : 1;
            }
            context.metrics().pushed(site, sent.copies().size(), refused);
        } else {
            blocks.putBack(taken);
            long wait = push.started ? context.backoff().failed(site) : context.backoff().missed(site);
            context.metrics().failed(site);
            log.warn("{}: push of {} blocks to {} failed; pushes there wait {} ms: {}",
                    image.name(), taken.length, site, wait, HeliotropeException.rootMessage(failure));
        }
        signal();
    }

    private record Sent(List<Copy> copies, boolean[] stored) {}

    /** One push: its site and blocks, whether it went to the site, and whether it still counts among those in flight. */
    private static final class Push {
        private final String site;
        private final long[] blocks;
        private final AtomicBoolean counted = new AtomicBoolean(true);
        private volatile boolean started;
        private volatile ScheduledFuture<?> lateTimer;

        Push(String site, long[] blocks) {
            this.site = site;
            this.blocks = blocks;
        }

        String site() {
            return site;
        }

        long[] blocks() {
            return blocks;
        }
    }
}
