package io.heliotrope.storage.image;

import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.nbd.ListedExport;
import io.heliotrope.storage.BlockStore.Dirty;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Where sessions come from: the site's own catalog, or the controller's. */
public interface ImageSessions {
    /**
     * The images a client may open, each with its description, in name order. Never blocks:
     * where the list comes from the controller, it completes once the controller answered.
     */
    CompletableFuture<List<ListedExport>> list();

    /** The size of image {@code name}, for a client that asks without opening it; never blocks. */
    CompletableFuture<Long> sizeBytes(String name);

    /** Whether {@code name} may be an image a client can open, answered from memory; the open decides for good. */
    boolean mayExist(String name);

    /** Starts a session; blocks (it may talk to the controller). */
    ImageSession open(String name);

    /** Whether writes in these sessions join the dirty set, for a controller to learn of them. */
    Dirty dirty();
}
