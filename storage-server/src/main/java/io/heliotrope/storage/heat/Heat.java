package io.heliotrope.storage.heat;

import static java.util.Objects.requireNonNull;

/**
 * What one site knew of an image's heat: the blocks its latest session of the image read or
 * wrote, hottest first.
 *
 * @param site the site that answered
 * @param epoch the epoch of that session; 0 when the site had no heat of the image
 * @param blocks block numbers, hottest first; owned by the receiver, not copied
 */
public record Heat(String site, long epoch, long[] blocks) {
    public Heat {
        requireNonNull(site, "site is null");
        requireNonNull(blocks, "blocks is null");
    }
}
