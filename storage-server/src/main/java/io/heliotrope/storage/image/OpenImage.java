package io.heliotrope.storage.image;

import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.view.DataView;
import io.heliotrope.version.Version;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReentrantLock;

import static java.util.Objects.requireNonNull;

/**
 * An image open at this site, shared by every connection to it. It hands out block
 * versions ({@link Version}): each epoch is larger than any before it, so versions never
 * repeat across sessions, and the counter only grows within one. Once the counter passes
 * {@link Version#COUNTER_NEAR_LIMIT} the session takes its next epoch in the background and
 * the counter starts over under it; only if the counter runs out before that epoch arrives
 * do writes fail, and they may be retried. A session that opened without an epoch
 * ({@link ImageSession#NO_EPOCH}, its store being full) has each write ask for one first,
 * and fail while it cannot be had. It also serializes read-modify-write of partial blocks,
 * and holds the image's {@link DataView}.
 */
public final class OpenImage {
    private static final Logger log = LoggerFactory.getLogger(OpenImage.class);
    private static final int STRIPES = 64;

    private final ImageSession session;
    private final DataView view;
    private final Executor sessionExecutor;
    private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];
    private long epoch;
    private long counter;
    /** The session's next epoch, asked for once the counter neared its limit, until the counter moves to it. */
    private CompletableFuture<Long> nextEpoch;

    /** @param sessionExecutor where the session takes its next epoch (it may wait on the controller) */
    OpenImage(ImageSession session, DataView view, Executor sessionExecutor) {
        this(session, view, sessionExecutor, 0);
    }

    /** @param counter the counter of the version before the first this image hands out */
    OpenImage(ImageSession session, DataView view, Executor sessionExecutor, long counter) {
        this.session = requireNonNull(session, "session is null");
        this.view = requireNonNull(view, "view is null");
        this.sessionExecutor = requireNonNull(sessionExecutor, "sessionExecutor is null");
        this.epoch = session.epoch();
        this.counter = counter;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantLock();
        }
    }

    public ImageInfo info() {
        return session.info();
    }

    public ImageSession session() {
        return session;
    }

    DataView view() {
        return view;
    }

    /** The version of the next write: larger than every one before it, in this session or any earlier one. */
    public synchronized long nextVersion() {
        long current = session.epoch();
        if (current > epoch) {
            // The session took a later epoch than this counter's (a handoff gave it a new holding): count under it from the start.
            epoch = current;
            counter = 0;
            nextEpoch = null;
        }
        if (epoch == ImageSession.NO_EPOCH) {
            epoch = session.nextEpoch();
        }
        if (counter >= Version.COUNTER_NEAR_LIMIT) {
            rollOver();
        }
        return Version.compose(epoch, ++counter);
    }

    /** Moves the counter to the next epoch once it has arrived, asking for it first; fails when the counter ran out before. */
    private void rollOver() {
        if (nextEpoch == null) {
            nextEpoch = CompletableFuture.supplyAsync(session::nextEpoch, sessionExecutor);
        }
        RuntimeException failure = null;
        if (nextEpoch.isDone()) {
            try {
                epoch = nextEpoch.join();
                counter = 0;
                return;
            } catch (CompletionException e) {
                failure = e.getCause() instanceof RuntimeException cause ? cause : e;
                log.warn("{}: cannot take the next epoch after {}, will ask again: {}", info().name(), epoch, failure.getMessage());
            } finally {
                nextEpoch = null;
            }
        }
        if (counter == Version.MAX_COUNTER) {
            throw failure != null ? failure : new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "image '" + info().name()
                    + "': every version of epoch " + epoch + " is used and the next epoch has not arrived yet; try again");
        }
    }

    /** The locks of two blocks, in the one order every caller takes them (the same lock twice is fine: they are reentrant). */
    ReentrantLock[] locksFor(long head, long tail) {
        int a = (int) Math.floorMod(head, (long) STRIPES);
        int b = (int) Math.floorMod(tail, (long) STRIPES);
        return new ReentrantLock[] {stripes[Math.min(a, b)], stripes[Math.max(a, b)]};
    }
}
