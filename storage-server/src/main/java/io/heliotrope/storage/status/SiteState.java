package io.heliotrope.storage.status;

import io.heliotrope.storage.image.mode.SyncStatus;
import io.heliotrope.storage.peer.PeerMetrics.BlockBytes;
import io.heliotrope.storage.propagation.PropagationManager.Backlog;

import io.heliotrope.storage.pull.PullStatus;

import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import static java.util.Objects.requireNonNull;

/**
 * What a site holds and does, image by image and peer by peer: what
 * {@code ImageService.GetSiteStatus} answers, for the controller's view of the cluster.
 *
 * @param peers the block bytes this site pushed to and fetched from each peer since it started, in name order
 */
public record SiteState(String site, Instant started, List<Image> images, Map<String, BlockBytes> peers) {
    public SiteState {
        requireNonNull(site, "site is null");
        requireNonNull(started, "started is null");
        images = List.copyOf(images);
        peers = Collections.unmodifiableSortedMap(new TreeMap<>(peers));
    }

    /**
     * An image this site stores a copy of, or has in use.
     *
     * @param identity the controller's identity of the image; null on a standalone site, or while
     *        the image is opening here and has no copy yet
     * @param dataBlocks blocks stored here that hold data, and {@code zeroBlocks} zero markers
     * @param connections NBD clients, imports and exports using the image here
     * @param dirtyBlocks blocks written here under this site's lease and not flushed to the controller yet
     * @param backlog its blocks waiting to be pushed to other sites
     * @param traffic the block bytes pushed and fetched for it since the site started
     * @param pull its background pull while a session holds it here; null otherwise
     * @param sync where its writes are copied, while a session of a {@code sync} image holds it here; null otherwise
     */
    public record Image(String name, UUID identity, long dataBlocks, long zeroBlocks, int connections, long dirtyBlocks, Backlog backlog,
                        BlockBytes traffic, PullStatus pull, SyncStatus sync) {
        public Image {
            requireNonNull(name, "name is null");
            requireNonNull(backlog, "backlog is null");
            requireNonNull(traffic, "traffic is null");
        }
    }
}
