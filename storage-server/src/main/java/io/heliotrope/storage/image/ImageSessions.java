package io.heliotrope.storage.image;

import io.heliotrope.storage.BlockStore.Dirty;

import java.util.List;

/** Where sessions come from: the site's own catalog, or the controller's. */
public interface ImageSessions {
    /** Names of the images a client may open; answers from memory. */
    List<String> imageNames();

    /**
     * Whether {@code name} may be an image a client can open, answered from memory: where
     * the list of names is a cache, a name it lacks may be an image created since.
     */
    default boolean mayExist(String name) {
        return imageNames().contains(name);
    }

    /** Starts a session; blocks (it may talk to the controller). */
    ImageSession open(String name);

    /** Whether writes in these sessions join the dirty set, for a controller to learn of them. */
    Dirty dirty();
}
