package io.heliotrope.storage.image.mode;

import java.util.List;
import java.util.Map;

/**
 * A {@code sync} image open for write at this site, as {@code image show}, {@code helio status}
 * and the status page show it.
 *
 * @param copies how many other sites should hold each write (its sync copies)
 * @param min the fewest copies, this site's included, a write is acknowledged with (its sync min)
 * @param sites the sites that take a copy of each write now, at most {@code copies}
 * @param down the sites that failed a push and have not answered since, each with why
 * @param missedBlocks blocks written while degraded that have not reached {@code sites} yet
 * @param degraded whether fewer than {@code copies} sites take the writes, or some writes
 *        acknowledged with fewer copies have not reached them yet
 */
public record SyncStatus(String image, int copies, int min, List<String> sites, Map<String, String> down, long missedBlocks, boolean degraded) {
    public SyncStatus {
        sites = List.copyOf(sites);
        down = Map.copyOf(down);
    }
}
