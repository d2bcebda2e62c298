package io.heliotrope.storage.view;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.ImageInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.UUID;

/** This site's copies of the controller's images: found by name, made, and dropped when their image is gone. */
final class LocalCopies {
    private static final Logger log = LoggerFactory.getLogger(LocalCopies.class);

    private final BlockStore store;

    LocalCopies(BlockStore store) {
        this.store = store;
    }

    /** The copy of that name, or null. */
    ImageInfo find(String name) {
        return store.listImages().stream().filter(image -> image.name().equals(name)).findFirst().orElse(null);
    }

    /** This site's copy of the image, made now; a peer's push may have made it meanwhile (then it must be a copy of the same image). */
    ImageInfo create(String name, UUID identity, long sizeBytes) {
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
    void drop(ImageInfo copy, UUID identity) {
        int unflushed = store.dirtyBlocks(copy.id()).size();
        if (unflushed > 0) {
            log.warn("{}: dropping {} blocks written here and never flushed: they belong to a removed image", copy.name(), unflushed);
        }
        store.deleteImage(copy.name());
        log.info("{}: local copy of image {} dropped, {}", copy.name(), copy.identity() == null ? "(no identity)" : copy.identity(),
                identity == null ? "the controller no longer has it" : "the controller's image of this name is " + identity);
    }
}
