package io.heliotrope.storage.propagation;

import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.peer.Peers;

import java.time.Clock;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;

import static java.util.Objects.requireNonNull;

/**
 * What the pushers of a site's images share.
 *
 * @param site the site this runs at: the row of the transition table its pushers draw from
 * @param scheduler runs the pushers' steps and their timers
 * @param storeExecutor runs the store's reads of the blocks to push (store calls block)
 */
record PushContext(
        String site,
        BlockStore store,
        Peers peers,
        ScheduledExecutorService scheduler,
        ExecutorService storeExecutor,
        Clock clock,
        PropagationConfig config,
        PropagationMetrics metrics,
        PeerBackoff backoff) {
    PushContext {
        requireNonNull(site, "site is null");
        requireNonNull(store, "store is null");
        requireNonNull(peers, "peers is null");
        requireNonNull(scheduler, "scheduler is null");
        requireNonNull(storeExecutor, "storeExecutor is null");
        requireNonNull(clock, "clock is null");
        requireNonNull(config, "config is null");
        requireNonNull(metrics, "metrics is null");
        requireNonNull(backoff, "backoff is null");
    }
}
