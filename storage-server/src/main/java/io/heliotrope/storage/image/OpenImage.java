package io.heliotrope.storage.image;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.version.Version;

import java.util.concurrent.locks.ReentrantLock;

import static java.util.Objects.requireNonNull;

/**
 * An image open at this site, shared by every connection to it. It hands out block
 * versions ({@link Version}): the session's epoch is larger than any before it, so
 * versions never repeat across sessions, and the counter only grows within one. It also
 * serializes read-modify-write of partial blocks.
 */
final class OpenImage {
    private static final int STRIPES = 64;

    private final ImageSession session;
    private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];
    private long counter;

    OpenImage(ImageSession session) {
        this.session = requireNonNull(session, "session is null");
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantLock();
        }
    }

    ImageInfo info() {
        return session.info();
    }

    ImageSession session() {
        return session;
    }

    synchronized long nextVersion() {
        if (counter == Version.MAX_COUNTER) {
            throw new HeliotropeException(ErrorCode.STORAGE_FAILURE,
                    "image '" + info().name() + "': 2^32 writes in one session; disconnect every client to start a new one");
        }
        return Version.compose(session.epoch(), ++counter);
    }

    /** The locks of two blocks, in the one order every caller takes them (the same lock twice is fine: they are reentrant). */
    ReentrantLock[] locksFor(long head, long tail) {
        int a = (int) Math.floorMod(head, (long) STRIPES);
        int b = (int) Math.floorMod(tail, (long) STRIPES);
        return new ReentrantLock[] {stripes[Math.min(a, b)], stripes[Math.max(a, b)]};
    }
}
