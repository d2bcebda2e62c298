package io.heliotrope.it;

import static java.util.Objects.requireNonNull;

/** A block's committed version in the controller's global metadata, and the site holding it ({@code ""}: a zero marker). */
record BlockVersion(long version, String holder) {
    BlockVersion {
        requireNonNull(holder, "holder is null");
    }

    /** A version as a site makes it: its lease epoch in the high half, a per-block write counter in the low half. */
    static long version(long epoch, long counter) {
        return epoch << 32 | counter;
    }

    static BlockVersion zero(long version) {
        return new BlockVersion(version, "");
    }

    boolean isZero() {
        return holder.isEmpty();
    }
}
