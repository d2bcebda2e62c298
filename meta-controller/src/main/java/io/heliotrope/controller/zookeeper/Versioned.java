package io.heliotrope.controller.zookeeper;

import static java.util.Objects.requireNonNull;

/**
 * A value read from a znode, with the znode's version (what a conditional write names)
 * and its creation zxid (which tells two znodes of the same path apart).
 */
public record Versioned<T>(T value, int version, long createZxid) {
    public Versioned {
        requireNonNull(value, "value is null");
    }
}
