package io.heliotrope.storage.pull;

import io.heliotrope.concurrent.CoalescedSteps;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.Replication;
import io.heliotrope.storage.peer.Backoff;
import io.heliotrope.storage.propagation.RateLimiter;
import io.heliotrope.storage.pull.PullStatus.State;
import io.heliotrope.storage.view.Background;
import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.storage.view.IoGate;
import io.heliotrope.storage.view.PullTarget;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static io.heliotrope.storage.pull.PullWindow.BLOCK_BYTES;

/**
 * The background pull of one open image (DESIGN.md section 4): once its session holds the
 * lease here, brings the blocks whose current version is only elsewhere, in the order of a
 * {@link PullQueue}, through the image's {@link PullTarget} (so it shares fetches with
 * foreground reads, and a write made here meanwhile wins), in batches that a {@link PullWindow}
 * per holder lets go, under the image's cap and budget.
 *
 * <p>Before every batch it checks that the gate is open, that the session is current and that
 * it still holds the lease it started under. A held gate (a handoff) stops it until the gate
 * opens again, when it starts afresh; an ended gate, a lost lease or {@link #stop()} stop it for
 * good. Batches under way then land under the store's rule, which is safe. It is done once no
 * block is elsewhere; that lasts for the holding, as the stale set only shrinks during it.
 *
 * <p>Steps run on the context's scheduler, one at a time ({@link #signal()} coalesces requests
 * for a step, as the pusher's), and never block there. A failed batch leaves its blocks stale:
 * they are asked again after a wait that doubles per failure of that holder.
 */
final class ImagePull implements Background {
    private static final Logger log = LoggerFactory.getLogger(ImagePull.class);
    /** Blocks taken from the queue and not yet sent, across holders: enough for the largest batch of each. */
    private static final int PENDING = 2 * PullWindow.MAX_BATCH;
    /** How long a pull that has nothing left to ask and still blocks elsewhere waits before it looks at the stale set again. */
    private static final long RESCAN_MILLIS = 1000;

    private final ImageSession session;
    private final PullTarget target;
    private final PullContext context;
    private final Consumer<ImagePull> stopped;
    private final RateLimiter limiter;
    private final PullRate rate = new PullRate();
    private final AtomicLong pulledBytes = new AtomicLong();
    private final CoalescedSteps steps;
    private volatile Replication replication;
    private volatile State state = State.WAITING;
    private volatile boolean ended;
    private volatile Run run;
    /** Where the next run, or the current one, takes blocks from; a foreground read's misses go there. */
    private volatile PullQueue queue;
    private volatile long lacked;
    /** The holding epoch whose pull is done, or -1; used by steps only. */
    private long doneHolding = -1;
    /** Whether the pull waits for the gate to open. */
    private final AtomicBoolean parked = new AtomicBoolean();
    private ScheduledFuture<?> timer;
    private long timerAt;

    ImagePull(ImageSession session, PullTarget target, PullContext context, Consumer<ImagePull> stopped) {
        this.session = session;
        this.target = target;
        this.context = context;
        this.stopped = stopped;
        this.replication = session.replication();
        this.limiter = new RateLimiter(context.clock(), 0, 0);
        this.queue = new PullQueue(session, context.order(), context.config());
        this.steps = new CoalescedSteps(context.scheduler(), this::guardedStep,
                () -> log.warn("{}: the background pull pauses: its scheduler refused a step", image()));
    }

    /** Starts: the first step looks at the gate. */
    void start() {
        signal();
    }

    @Override
    public void missed(List<GlobalBlock> blocks) {
        if (!blocks.isEmpty()) {
            queue.missed(blocks);
            if (run != null) {
                signal();
            }
        }
    }

    /** Stops for good, and is forgotten: the view closes. */
    @Override
    public void stop() {
        end();
        stopped.accept(this);
        signal();
    }

    /** The image's settings as the catalog has them now: a pull turned off stops, one turned on starts; the cap and budget change. */
    void refresh(Replication changed) {
        replication = changed;
        signal();
    }

    String image() {
        return session.info().name();
    }

    PullStatus status() {
        return new PullStatus(image(), state, session.elsewhereBlocks(), lacked, pulledBytes.get(), rate.perSecond(context.clock().millis()));
    }

    State state() {
        return state;
    }

    long elsewhere() {
        return session.elsewhereBlocks();
    }

    long lacked() {
        return lacked;
    }

    /** The window of the holder {@code site} in the current run, 0 when there is none. */
    long window(String site) {
        Run current = run;
        Lane lane = current == null ? null : current.lanes.get(site);
        return lane == null ? 0 : lane.window.window();
    }

    private void signal() {
        steps.signal();
    }

    private void guardedStep() {
        try {
            step();
        } catch (RuntimeException e) {
            log.warn("{}: a step of the background pull failed; it goes on at the next one: {}", image(), HeliotropeException.rootMessage(e));
        }
    }

    private void step() {
        if (ended) {
            end();
            cancelTimer();
            return;
        }
        Replication settings = replication;
        limiter.limits(settings.bandwidthBytesPerSecond(), settings.budgetBytesPerDay());
        if (!settings.pull() || settings.mode() == Replication.Mode.REMOTE) {
            endRun(State.OFF);
            return;
        }
        IoGate gate = session.gate();
        if (!gate.isOpen()) {
            if (run != null) {
                endRun(State.STOPPED);
            }
            park(gate);
            return;
        }
        Run current = run;
        if (current == null) {
            current = begin();
            if (current == null) {
                return;
            }
        }
        if (!holds(current)) {
            end();
            return;
        }
        if (session.elsewhereBlocks() == 0) {
            doneHolding = current.holding;
            endRun(State.DONE);
            return;
        }
        fill(current);
    }

    /** Ends the run, if one runs: what it sent lands, nothing more is asked under it; the next run starts from its own queue. */
    private void endRun(State next) {
        if (run != null) {
            run = null;
            queue = new PullQueue(session, context.order(), context.config());
        }
        state = next;
    }

    /** Stops for good: the session lost its lease or closes. */
    private void end() {
        ended = true;
        run = null;
        state = State.STOPPED;
    }

    /** Waits for the gate to open (a handoff's standby, or a hold); ends once it ends. */
    private void park(IoGate gate) {
        if (!parked.compareAndSet(false, true)) {
            return;
        }
        gate.whenOpen().whenComplete((opened, failure) -> {
            if (failure != null) {
                end();
            }
            parked.set(false);
            signal();
        });
    }

    /** A new run under the holding the session has now; null when there is nothing to pull. */
    private Run begin() {
        long holding = session.holdingEpoch();
        long elsewhere = session.elsewhereBlocks();
        if (holding == doneHolding || elsewhere == 0) {
            state = State.DONE;
            doneHolding = holding;
            return null;
        }
        Run started = new Run(holding, queue);
        lacked = elsewhere;
        run = started;
        state = State.RUNNING;
        if (context.order() == PullOrder.HEAT) {
            int most = (int) Math.min(elsewhere, context.config().heatBlocks());
            context.heat().heat(session.info(), holding, most).thenAccept(heats -> {
                started.queue.heat(heats);
                signal();
            });
            context.scheduler().schedule(() -> {
                started.queue.heatWaited();
                signal();
            }, context.config().heatWait().toMillis(), TimeUnit.MILLISECONDS);
        }
        log.info("{}: background pull of {} blocks starts (holding epoch {})", image(), elsewhere, holding);
        return started;
    }

    /** Whether the session still holds the lease the run started under. */
    private boolean holds(Run current) {
        try {
            session.checkCurrent();
        } catch (RuntimeException e) {
            return false;
        }
        return session.holdingEpoch() == current.holding;
    }

    private void fill(Run current) {
        long now = context.clock().millis();
        for (Sent failed; (failed = current.failed.poll()) != null; ) {
            failed.lane.pending.addAll(failed.blocks);
            current.pending += failed.blocks.size();
            failed.lane.backoff.failed(now);
        }
        long wait = Long.MAX_VALUE;
        boolean progress = true;
        while (progress) {
            progress = false;
            for (GlobalBlock next; current.pending < PENDING && (next = current.queue.next()) != null; ) {
                current.lane(next.holder(), context).pending.addLast(next);
                current.pending++;
            }
            for (Lane lane : current.lanes.values()) {
                long backoff = lane.backoff.millisLeft(now);
                if (backoff > 0) {
                    wait = Math.min(wait, backoff);
                    continue;
                }
                while (!lane.pending.isEmpty()) {
                    long allowed = Math.min(limiter.available(), Math.max(BLOCK_BYTES, limiter.quantum()));
                    int most = (int) Math.min(lane.window.batchBlocks(), allowed / BLOCK_BYTES);
                    if (most == 0) {
                        long until = limiter.millisUntil(BLOCK_BYTES);
                        wakeIn(until < 0 ? RESCAN_MILLIS : Math.max(1, until));
                        return;
                    }
                    if (!lane.window.hasRoom(most * BLOCK_BYTES)) {
                        break;
                    }
                    List<GlobalBlock> batch = stillStale(current, lane, most);
                    RateLimiter.Grant grant = batch.isEmpty() ? null : limiter.tryAcquire(batch.size() * BLOCK_BYTES);
                    if (grant != null) {
                        send(current, lane, batch, grant);
                        progress = true;
                    } else if (!batch.isEmpty()) {
                        // The clock moved on between the look and the grant: the batch waits for the pace.
                        for (int i = batch.size() - 1; i >= 0; i--) {
                            lane.pending.addFirst(batch.get(i));
                        }
                        current.pending += batch.size();
                        wakeIn(1);
                        return;
                    }
                }
            }
        }
        if (current.queue.exhausted() && current.pending == 0 && current.inFlight.get() == 0) {
            current.queue.rescan();
            wait = Math.min(wait, RESCAN_MILLIS);
        }
        if (wait != Long.MAX_VALUE) {
            wakeIn(wait);
        }
    }

    /**
     * Up to {@code most} of the lane's pending blocks whose stale entry is still the one taken: a write or fetch made here
     * meanwhile drops it, and so does a fetch on its way (a batch that joined a client's fetches would end early, and one
     * such latency taken as the path's shrank the window to its least for 30 s).
     */
    private List<GlobalBlock> stillStale(Run current, Lane lane, int most) {
        List<GlobalBlock> batch = new ArrayList<>(most);
        while (batch.size() < most && !lane.pending.isEmpty()) {
            GlobalBlock block = lane.pending.pollFirst();
            current.pending--;
            if (Objects.equals(session.staleEntry(block.block()), block) && !target.inFlight(block)) {
                batch.add(block);
            }
        }
        return batch;
    }

    private void send(Run current, Lane lane, List<GlobalBlock> batch, RateLimiter.Grant grant) {
        long bytes = batch.size() * BLOCK_BYTES;
        lane.window.sent(bytes);
        current.inFlight.incrementAndGet();
        long start = context.nanos();
        CompletableFuture<Void> all;
        try {
            all = CompletableFuture.allOf(target.pull(batch).toArray(CompletableFuture[]::new));
        } catch (RuntimeException e) {
            limiter.refund(grant, bytes);
            all = CompletableFuture.failedFuture(e);
        }
        all.whenComplete((done, failure) -> arrived(current, new Sent(lane, batch), bytes, start, failure));
    }

    private void arrived(Run current, Sent sent, long bytes, long start, Throwable failure) {
        Lane lane = sent.lane;
        if (failure == null) {
            long now = context.nanos();
            lane.window.arrived(bytes, now - start, now);
            lane.backoff.succeeded();
            long data = sent.blocks.size() * (long) BLOCK_SIZE;
            pulledBytes.addAndGet(data);
            rate.add(context.clock().millis(), data);
            context.metrics().pulled(lane.holder, sent.blocks.size(), data);
        } else {
            lane.window.failed(bytes);
            current.failed.add(sent);
            log.debug("{}: a background pull of {} blocks from {} failed; they are asked again later: {}",
                    image(), sent.blocks.size(), lane.holder, HeliotropeException.rootMessage(failure));
        }
        current.inFlight.decrementAndGet();
        signal();
    }

    private void wakeIn(long millis) {
        long at = context.clock().millis() + millis;
        if (timer != null && !timer.isDone() && timerAt <= at) {
            return;
        }
        cancelTimer();
        try {
            timer = context.scheduler().schedule(this::signal, millis, TimeUnit.MILLISECONDS);
            timerAt = at;
        } catch (RejectedExecutionException e) {
            log.warn("{}: the background pull pauses: its scheduler refused a timer", image());
        }
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    /** One run of the pull: under one holding, from the open of the gate until it stops or is done. */
    private static final class Run {
        final long holding;
        final PullQueue queue;
        /** The holders' lanes; written by steps, read by meters. */
        final Map<String, Lane> lanes = new ConcurrentHashMap<>();
        final AtomicInteger inFlight = new AtomicInteger();
        final Queue<Sent> failed = new ConcurrentLinkedQueue<>();
        /** Blocks in the lanes' pending lists; used by steps only. */
        int pending;

        Run(long holding, PullQueue queue) {
            this.holding = holding;
            this.queue = queue;
        }

        Lane lane(String holder, PullContext context) {
            PullConfig config = context.config();
            return lanes.computeIfAbsent(holder, h -> new Lane(h, new PullWindow(config),
                    new Backoff(config.firstBackoff(), config.longestBackoff(), new SplittableRandom())));
        }
    }

    /**
     * What is pulled from one holder: its window, its blocks waiting for room in it, and how long
     * nothing is asked of it after failed batches (a window's batches failing together count
     * once; a batch that arrives ends the wait, so a pull resumes as soon as its path heals).
     */
    private static final class Lane {
        final String holder;
        final PullWindow window;
        final Backoff backoff;
        final ArrayDeque<GlobalBlock> pending = new ArrayDeque<>();

        Lane(String holder, PullWindow window, Backoff backoff) {
            this.holder = holder;
            this.window = window;
            this.backoff = backoff;
        }
    }

    private record Sent(Lane lane, List<GlobalBlock> blocks) {}
}
