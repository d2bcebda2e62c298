package io.heliotrope.it;

import static java.util.Objects.requireNonNull;

/** A block's committed version in the controller's global metadata, and the site holding it ({@code ""}: a zero marker). */
record BlockVersion(long version, String holder) {
    BlockVersion {
        requireNonNull(holder, "holder is null");
    }

    static BlockVersion zero(long version) {
        return new BlockVersion(version, "");
    }

    boolean isZero() {
        return holder.isEmpty();
    }
}
