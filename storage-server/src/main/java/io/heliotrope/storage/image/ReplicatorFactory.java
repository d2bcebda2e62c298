package io.heliotrope.storage.image;

import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.storage.view.Replicator;

/** Chooses what an image's replication mode does beside this site's store, when the image opens. */
@FunctionalInterface
public interface ReplicatorFactory {
    /** A site that replicates nothing: a standalone site, or one whose images are all on demand. */
    ReplicatorFactory NONE = session -> Replicator.NONE;

    Replicator open(ImageSession session);
}
