package io.heliotrope.storage.pull;

/** The order in which a background pull takes the blocks its site lacks (DESIGN.md section 4). */
public enum PullOrder {
    /**
     * The neighbours of this site's own misses first, then what the previous holder read and
     * wrote most, hottest first, then the rest in block order.
     */
    HEAT,
    /** Block order only: the baseline the hottest-first order is measured against. */
    BLOCK
}
