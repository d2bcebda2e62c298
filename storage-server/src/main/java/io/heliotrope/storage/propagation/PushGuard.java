package io.heliotrope.storage.propagation;

import io.heliotrope.storage.BlockStore.Copy;

/**
 * Whether a copy may go to a site now. A site that holds a block's committed version must
 * keep it until a newer one is committed: were the writer fenced before its flush, that
 * copy would be the only one left. So a version not yet committed never goes to the site
 * holding the committed one; it goes once it is committed (the writer's next checkpoint).
 */
@FunctionalInterface
public interface PushGuard {
    /** Every copy may go anywhere: nothing is committed anywhere else. */
    PushGuard NONE = (copy, site) -> true;

    boolean mayPush(Copy copy, String site);
}
