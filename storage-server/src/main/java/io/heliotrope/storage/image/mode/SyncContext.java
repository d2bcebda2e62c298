package io.heliotrope.storage.image.mode;

import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.peer.GroupSync;
import io.heliotrope.storage.peer.Peers;
import io.heliotrope.storage.peer.SiteDirectory;
import io.heliotrope.storage.view.WanWaits;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

import static java.util.Objects.requireNonNull;

/**
 * What the {@code sync} images open at a site share.
 *
 * @param sites the registry, read again when a write finds too few sites
 * @param timers runs the retries of waiting writes and each image's look at its sites every second; never blocked
 * @param storeReads reads the blocks a site that answers again missed, to push them to it
 * @param patience how long a write waits for a site before it goes on degraded or fails
 * @param waits counts how long writes waited for their copies
 * @param durableHere syncs {@code store} for the FLUSHes of sync images, and shares the syncs a write starts early
 */
public record SyncContext(Peers peers, BlockStore store, SiteDirectory sites, ScheduledExecutorService timers, Executor storeReads, Duration patience,
                          WanWaits waits, GroupSync durableHere) {
    public SyncContext {
        requireNonNull(peers, "peers is null");
        requireNonNull(store, "store is null");
        requireNonNull(sites, "sites is null");
        requireNonNull(timers, "timers is null");
        requireNonNull(storeReads, "storeReads is null");
        requireNonNull(patience, "patience is null");
        requireNonNull(waits, "waits is null");
        requireNonNull(durableHere, "durableHere is null");
    }
}
