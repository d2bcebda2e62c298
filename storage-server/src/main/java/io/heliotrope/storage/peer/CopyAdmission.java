package io.heliotrope.storage.peer;

import io.heliotrope.storage.peer.Peers.ImageRef;

import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * Whether a peer's push or fence may make this site's copy of an image it has none of, and
 * of what size: peers name an image, its identity and its size, and none of that is trusted
 * ({@link CatalogCheck} asks the controller's catalog).
 */
@FunctionalInterface
public interface CopyAdmission {
    /**
     * The size of the copy of {@code image} to make here; empty when no copy may be made.
     * Fails with {@code PEER_UNAVAILABLE} when this cannot be told now (the peer retries).
     */
    CompletableFuture<OptionalLong> sizeOf(ImageRef image);
}
