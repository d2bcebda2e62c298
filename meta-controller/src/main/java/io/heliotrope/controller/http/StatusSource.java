package io.heliotrope.controller.http;

import io.heliotrope.proto.controller.v1.ClusterStatus;
import io.heliotrope.proto.controller.v1.ImageLocality;

/**
 * What the status port shows, as the controller's GetClusterStatus and GetImageLocality
 * answer it. A call fails with a {@link io.heliotrope.error.HeliotropeException}:
 * {@code IMAGE_NOT_FOUND}, {@code INVALID_ARGUMENT}, or {@code PEER_UNAVAILABLE} when
 * ZooKeeper cannot be reached.
 */
public interface StatusSource {
    /** Every site and every image, or only the image named (all when the name is empty). */
    ClusterStatus status(String imageOrEmpty);

    /** Which site holds the current version of each of {@code regions} regions of the image. */
    ImageLocality locality(String image, int regions);
}
