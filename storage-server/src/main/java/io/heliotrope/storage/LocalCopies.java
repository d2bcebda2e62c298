package io.heliotrope.storage;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.UUID;

/**
 * This site's copies of the controller's images: found by name, made (by an open, or by a
 * peer's push, whichever comes first), and dropped when their image is gone.
 */
public final class LocalCopies {
    private static final Logger log = LoggerFactory.getLogger(LocalCopies.class);

    private final BlockStore store;

    public LocalCopies(BlockStore store) {
        this.store = store;
    }

    /** The copy of that name, or null. */
    public ImageInfo find(String name) {
        try {
            return store.image(name);
        } catch (HeliotropeException e) {
            if (e.code() != ErrorCode.IMAGE_NOT_FOUND) {
                throw e;
            }
            return null;
        }
    }

    /**
     * This site's copy of the image, made now, or made meanwhile by another caller; fails
     * with {@code IMAGE_EXISTS} when the name is another image's here.
     */
    public ImageInfo create(String name, UUID identity, long sizeBytes) {
        try {
            return store.createImage(name, sizeBytes, identity);
        } catch (HeliotropeException e) {
            ImageInfo made = e.code() == ErrorCode.IMAGE_EXISTS ? find(name) : null;
            if (made == null || !made.isCopyOf(identity)) {
                throw e;
            }
            return made;
        }
    }

    /** Drops a copy of a removed image: its blocks, dirty entries, view and block file. */
    public void drop(ImageInfo copy, UUID identity) {
        int unflushed = store.dirtyBlocks(copy.id()).size();
        if (unflushed > 0) {
            log.warn("{}: dropping {} blocks written here and never flushed: they belong to a removed image", copy.name(), unflushed);
        }
        store.deleteImage(copy.name());
        log.info("{}: local copy of image {} dropped, {}", copy.name(), copy.identity() == null ? "(no identity)" : copy.identity(),
                identity == null ? "the controller no longer has it" : "the controller's image of this name is " + identity);
    }
}
