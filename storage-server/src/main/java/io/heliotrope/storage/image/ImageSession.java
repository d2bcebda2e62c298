package io.heliotrope.storage.image;

import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.ImageInfo;

import java.util.SortedMap;

/**
 * One open of an image at this site, shared by all its connections: the epoch its new
 * versions carry and which local copies are current. A standalone site owns its images;
 * a site with a controller holds the image's write lease for the session.
 */
public interface ImageSession {
    ImageInfo info();

    /** The high 32 bits of every version this session writes. */
    long epoch();

    /** Fails with {@code STALE_LEASE} once this site may no longer serve the image. */
    void checkCurrent();

    /** The blocks in [first, first + count) whose local copy is not the current version. */
    SortedMap<Long, GlobalBlock> stale(long first, long count);

    /** This site just wrote these blocks: their local copies are current now. */
    void wrote(long first, long count);

    /** Ends the session: flushes what is left and gives the image up. */
    void close();
}
