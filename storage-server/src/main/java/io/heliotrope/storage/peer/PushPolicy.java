package io.heliotrope.storage.peer;

import io.heliotrope.storage.BlockStore.CopyRule;
import io.heliotrope.storage.ImageInfo;

/**
 * Which copies pushed by other sites this site takes, per image. A site refuses pushes over
 * its own copies that the controller has not seen yet (unflushed writes) or that a lease
 * still holds; the rule is checked by the store in the same atomic step as the store.
 */
@FunctionalInterface
public interface PushPolicy {
    /** Takes any copy newer than the local one. */
    PushPolicy NEWER = image -> CopyRule.NEWER;

    CopyRule ruleFor(ImageInfo image);
}
