package io.heliotrope.storage.session;

import io.heliotrope.storage.ImageInfo;

/**
 * Settles what an open owes before the image is served here: the unflushed acknowledged
 * writes of a dead {@code sync} holding ({@link Controller.Opened#recovery()}), which only
 * the sites that took its copies hold. Called with the view synced to the open's metaSeq
 * and the lease renewed meanwhile; on return the recovered versions are committed and in
 * the view. Fails (and the open with it) when it cannot recover them.
 */
@FunctionalInterface
public interface HoldingRecovery {
    void recover(ImageInfo image, Controller.Opened opened);
}
