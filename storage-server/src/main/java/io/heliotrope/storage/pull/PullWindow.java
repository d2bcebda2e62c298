package io.heliotrope.storage.pull;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;

/**
 * How many bytes a pull keeps in flight from one holder (DESIGN.md section 4): as many as the
 * path carries, and no more than keeps a queue of about {@code target} on it, so that a
 * foreground fetch on the same link waits at most that behind pull data. A fixed number cannot
 * do both: 2 MiB caps a pull at 23 MB/s over 1 Gbit/s at 75 ms (9.4 MB in flight there), and
 * 9 MiB queues 750 ms ahead of every foreground answer over 100 Mbit/s.
 *
 * <p>Delay-based, as LEDBAT (RFC 6817): a batch's latency less the base latency (the least of the
 * last 30 s) is the queueing delay its answer met. The window starts at {@code startWindow} and
 * grows by the bytes each answer brings (doubling per round trip) until the last 8 answers all met
 * more than the target; it is then set to what the path delivered over the base latency plus the
 * target's worth, and from there grows or shrinks by {@code (target - delay) / target} of a
 * quarter of itself per round trip (LEDBAT's one batch per round trip took 3 s on a loaded site to
 * fill 1 Gbit/s at 75 ms), shrinking at most by half in one base latency, within [{@code minWindow},
 * {@code maxWindow}]. A batch holds about 2 ms of what the path delivers (8 to 256 blocks), so a
 * foreground answer waits at most the target and one batch. The base latency comes from the
 * smallest batches (a slow start's), so a delay holds up to a batch's own 2 ms on the wire as
 * well: the queue the window keeps is the target less that. Times are nanoseconds from any
 * origin; thread-safe.
 */
final class PullWindow {
    /** What a block costs on the path: its data, block number and version. */
    static final long BLOCK_BYTES = BLOCK_SIZE + 16;
    static final int MIN_BATCH = 8;
    static final int MAX_BATCH = 256;
    private static final long BATCH_NANOS = TimeUnit.MILLISECONDS.toNanos(8);
    private static final long BUCKET_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final int BASE_BUCKETS = 30;
    /** The delivery rate is measured over at least this long (or the base latency when longer). */
    private static final long MIN_RATE_SPAN_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /**
     * Answers a slow start takes before a delay ends it: the first answers of a pull's new connections carry their
     * handshakes, and one such ended it at 1.4 MB on a 9.4 MB path.
     */
    private static final int SLOW_START_SAMPLES = 8;
    /** The most a round trip changes the window by, as a share of it: more overshoots by a round trip's lag of the delay. */
    private static final double GAIN = 0.25;

    private final long target;
    private final long min;
    private final long max;
    private double window;
    private long inFlight;
    private boolean slowStart = true;
    /** Per second, the least latency an answer had: {bucket, latency}. */
    private final ArrayDeque<long[]> base = new ArrayDeque<>();
    /** The answers of the last rate span: {time, bytes}, and their sum. */
    private final ArrayDeque<long[]> delivered = new ArrayDeque<>();
    private long deliveredBytes;
    /** The last answers, {time, bytes, latency, delay}; empty ones (delay MAX_VALUE) before there are that many. */
    private final long[][] recent = new long[8][];
    private int samples;
    /** When the answers of what slow start sent beyond the window it ended with have arrived. */
    private long drainedAt;
    /** A round lasts a base latency: the window shrinks at most by half in one. */
    private long roundStart = Long.MIN_VALUE / 2;
    private double roundFloor;

    PullWindow(PullConfig config) {
        this.target = config.target().toNanos();
        this.min = config.minWindow();
        this.max = config.maxWindow();
        this.window = config.startWindow();
        Arrays.fill(recent, new long[] {0, 0, 0, Long.MAX_VALUE});
    }

    /** Whether a batch of {@code bytes} may go now: it fits in the window, or nothing is in flight. */
    synchronized boolean hasRoom(long bytes) {
        return inFlight == 0 || inFlight + bytes <= window;
    }

    /** How many blocks the next batch holds: about 2 ms of what the path delivers. */
    synchronized int batchBlocks() {
        long blocks = (long) (rate() * BATCH_NANOS / 1e9 / BLOCK_BYTES);
        return (int) Math.max(MIN_BATCH, Math.min(MAX_BATCH, blocks));
    }

    synchronized void sent(long bytes) {
        inFlight += bytes;
    }

    /** A batch of {@code bytes} arrived {@code latency} after it was asked, at {@code now}. */
    synchronized void arrived(long bytes, long latency, long now) {
        inFlight -= bytes;
        long baseLatency = recordBase(latency, now);
        delivered.addLast(new long[] {now, bytes});
        deliveredBytes += bytes;
        long span = Math.max(MIN_RATE_SPAN_NANOS, baseLatency);
        while (delivered.peekFirst()[0] <= now - span) {
            deliveredBytes -= delivered.removeFirst()[1];
        }
        long delay = filtered(latency - baseLatency);
        remember(bytes, latency, now, baseLatency);
        boolean newRound = now - roundStart >= baseLatency;
        if (slowStart && (delay <= target || samples < SLOW_START_SAMPLES)) {
            window = Math.min(max, window + bytes);
        } else if (slowStart) {
            // The answers come at the path's rate now that it queues: the window is what the path carries in a base latency
            // and the target. What slow start sent beyond that drains meanwhile: its answers' delays do not shrink the window.
            slowStart = false;
            window = Math.max(min, Math.min(max, trainRate() * (baseLatency + target) / 1e9));
            drainedAt = now + latency;
        } else if (delay <= target || now >= drainedAt) {
            // In proportion to the room left under the target: up to doubling per round trip on an empty path (so a path
            // whose rate rose, or a noisy start, is filled in a few round trips, as slow start would), shrinking as fast above it.
            double change = GAIN * (target - delay) / target * bytes;
            window = Math.max(min, Math.min(max, Math.max(roundFloor, window + change)));
        }
        if (newRound) {
            roundStart = now;
            roundFloor = window / 2;
        }
    }

    /**
     * The least of the last few delays: one answer that waited behind a burst, a new connection's handshake or a pause
     * of the process does not shrink the window.
     */
    private long filtered(long delay) {
        long least = delay;
        for (long[] answer : recent) {
            least = Math.min(least, answer[3]);
        }
        return least;
    }

    /** Keeps the last few answers: {time, bytes, latency, delay}. */
    private void remember(long bytes, long latency, long now, long baseLatency) {
        recent[samples++ % recent.length] = new long[] {now, bytes, latency, latency - baseLatency};
    }

    /** Bytes per second the last few answers came at: the path's rate when it queues. */
    private double trainRate() {
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        long bytes = 0;
        for (long[] answer : recent) {
            first = Math.min(first, answer[0]);
            last = Math.max(last, answer[0]);
            bytes += answer[1];
        }
        long oldest = recent[samples % recent.length][1];
        return last == first ? rate() : (bytes - oldest) * 1e9 / (last - first);
    }

    /** A batch of {@code bytes} failed: the path may be congested or down. */
    synchronized void failed(long bytes) {
        inFlight -= bytes;
        slowStart = false;
        window = Math.max(min, window / 2);
    }

    synchronized long window() {
        return (long) window;
    }

    synchronized long inFlight() {
        return inFlight;
    }

    /** Bytes per second the path delivered lately; 0 before the first answer. */
    private double rate() {
        if (delivered.isEmpty()) {
            return 0;
        }
        long span = Math.max(MIN_RATE_SPAN_NANOS, base.stream().mapToLong(bucket -> bucket[1]).min().orElse(0));
        return deliveredBytes * 1e9 / span;
    }

    /** Keeps the least latency of each of the last 30 seconds; returns the least of them. */
    private long recordBase(long latency, long now) {
        long bucket = Math.floorDiv(now, BUCKET_NANOS);
        long[] last = base.peekLast();
        if (last != null && last[0] == bucket) {
            last[1] = Math.min(last[1], latency);
        } else {
            base.addLast(new long[] {bucket, latency});
        }
        while (base.peekFirst()[0] <= bucket - BASE_BUCKETS) {
            base.removeFirst();
        }
        return base.stream().mapToLong(entry -> entry[1]).min().orElseThrow();
    }
}
