package io.heliotrope.storage.propagation;

import java.time.Duration;

import static java.util.Objects.requireNonNull;

/**
 * How a site's pushers work.
 *
 * @param batchBlocks the most blocks in one push (256: 1 MiB of data)
 * @param pushesInFlight the most pushes of one image under way at once. A push takes a
 *        round trip plus its transfer, so one image sends at most
 *        {@code pushesInFlight * batch / (rtt + batch / link)}: with 16 and 1 MiB batches,
 *        about 200 MB/s over a 75 ms round trip, more than a 1 Gbit/s link carries
 * @param pause how long a pusher waits after drawing "not now" from the transition row
 * @param firstBackoff the longest first wait after a failed push to a site; it doubles per failure
 *        (each wait is drawn between half of it and all of it: see {@link io.heliotrope.storage.peer.Backoff})
 * @param longestBackoff the longest wait after failed pushes. A site that answers again ends the
 *        wait at once: it bounds how long pushes take to resume after a site that refused
 *        connections comes back, not after a cut link heals (a push under way then answers)
 * @param trackedBlocks past this many blocks with counts, reads of blocks not yet counted
 *        are not counted (about 40 bytes of heap each); writes always are
 * @param answerWithin a push without an answer after this long makes its site wait (as a
 *        failure would), frees its place among the pushes in flight, and goes on
 * @param pushDeadline how long a push may go on without an answer before it fails and its blocks
 *        are queued again: long enough for a cut link to heal under it, so that what it carries
 *        lands once instead of twice (with it, again)
 */
public record PropagationConfig(int batchBlocks, int pushesInFlight, Duration pause, Duration firstBackoff, Duration longestBackoff, int trackedBlocks,
                                Duration answerWithin, Duration pushDeadline) {
    private static final Duration DEFAULT_ANSWER_WITHIN = Duration.ofSeconds(5);
    private static final Duration DEFAULT_PUSH_DEADLINE = Duration.ofMinutes(2);
    public static final PropagationConfig DEFAULT =
            new PropagationConfig(256, 16, Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofSeconds(5), 1 << 22);

    public PropagationConfig {
        requireNonNull(pause, "pause is null");
        requireNonNull(firstBackoff, "firstBackoff is null");
        requireNonNull(longestBackoff, "longestBackoff is null");
        requireNonNull(answerWithin, "answerWithin is null");
        requireNonNull(pushDeadline, "pushDeadline is null");
        if (batchBlocks < 1 || pushesInFlight < 1 || trackedBlocks < 0) {
            throw new IllegalArgumentException("batchBlocks and pushesInFlight must be positive, trackedBlocks not negative");
        }
        if (pause.isNegative() || firstBackoff.isNegative() || longestBackoff.compareTo(firstBackoff) < 0) {
            throw new IllegalArgumentException("pause and backoffs must not be negative, nor the longest backoff shorter than the first");
        }
        if (answerWithin.isNegative() || answerWithin.isZero() || pushDeadline.compareTo(answerWithin) < 0) {
            throw new IllegalArgumentException("answerWithin must be positive and pushDeadline at least as long: " + answerWithin + ", " + pushDeadline);
        }
    }

    /** A config with the default answer wait and push deadline. */
    public PropagationConfig(int batchBlocks, int pushesInFlight, Duration pause, Duration firstBackoff, Duration longestBackoff, int trackedBlocks) {
        this(batchBlocks, pushesInFlight, pause, firstBackoff, longestBackoff, trackedBlocks, DEFAULT_ANSWER_WITHIN, DEFAULT_PUSH_DEADLINE);
    }

    /** The same, with pushes late after {@code answerWithin}: the site's peer timeout. */
    public PropagationConfig withAnswerWithin(Duration answerWithin) {
        return new PropagationConfig(batchBlocks, pushesInFlight, pause, firstBackoff, longestBackoff, trackedBlocks, answerWithin,
                pushDeadline.compareTo(answerWithin) < 0 ? answerWithin : pushDeadline);
    }
}
