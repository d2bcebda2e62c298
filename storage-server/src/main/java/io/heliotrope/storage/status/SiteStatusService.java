package io.heliotrope.storage.status;

import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.image.ImageExports;
import io.heliotrope.storage.image.ImageExports.InUse;
import io.heliotrope.storage.peer.PeerMetrics.BlockBytes;
import io.heliotrope.storage.peer.PeerMetrics.Traffic;
import io.heliotrope.storage.propagation.PropagationManager.Backlog;
import io.heliotrope.storage.image.mode.SyncStatus;
import io.heliotrope.storage.pull.PullStatus;
import io.heliotrope.storage.status.StoreCensus.Counts;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * The status of this site, free of any transport: each image's blocks in the store, from the
 * last {@link StoreCensus}, with its connections, dirty blocks, push backlog and traffic, and
 * the traffic with each peer, these as they are now. Cheap enough for the controller to ask
 * every few seconds: nothing here waits on the network, and nothing runs on an NBD event loop.
 */
public final class SiteStatusService {
    private static final Counts NOT_STORED = new Counts(null, 0, 0, 0);
    private static final BlockBytes NO_TRAFFIC = new BlockBytes(0, 0);

    private final String site;
    private final Instant started;
    private final ImageExports exports;
    private final StoreCensus census;
    private final Supplier<Map<String, Backlog>> backlogs;
    private final Supplier<Traffic> traffic;
    private final Supplier<Map<String, PullStatus>> pulls;
    private final Supplier<Map<String, SyncStatus>> syncs;

    /**
     * @param backlogs each image's push backlog by name ({@code PropagationManager::backlogs}); none on a standalone site
     * @param traffic the block bytes of this site's pushes and fetches ({@code PeerMetrics::blockBytes}); none on a standalone site
     * @param pulls the background pull of each image a session holds here, by name; none on a standalone site
     * @param syncs where the writes of each {@code sync} image a session holds here are copied, by name; none on a standalone site
     * @param censusExecutor runs the census of the store, one thread that nothing else waits on; its owner shuts it down
     */
    public SiteStatusService(String site, Instant started, BlockStore store, ImageExports exports, Supplier<Map<String, Backlog>> backlogs,
            Supplier<Traffic> traffic, Supplier<Map<String, PullStatus>> pulls, Supplier<Map<String, SyncStatus>> syncs, ExecutorService censusExecutor) {
        this.site = requireNonNull(site, "site is null");
        this.started = requireNonNull(started, "started is null");
        this.exports = requireNonNull(exports, "exports is null");
        this.census = new StoreCensus(store, exports, censusExecutor, System::nanoTime);
        this.backlogs = requireNonNull(backlogs, "backlogs is null");
        this.traffic = requireNonNull(traffic, "traffic is null");
        this.pulls = requireNonNull(pulls, "pulls is null");
        this.syncs = requireNonNull(syncs, "syncs is null");
    }

    /** Every image this site stores or has in use, in name order, and the traffic with each peer. */
    public CompletableFuture<SiteState> status() {
        return census.latest().thenApply(this::state);
    }

    private SiteState state(Map<String, Counts> stored) {
        Map<String, InUse> inUse = exports.inUse().stream().collect(Collectors.toMap(InUse::name, Function.identity()));
        Map<String, Backlog> waiting = backlogs.get();
        Traffic carried = traffic.get();
        Map<String, PullStatus> pulled = pulls.get();
        Map<String, SyncStatus> copied = syncs.get();
        SortedSet<String> names = new TreeSet<>(stored.keySet());
        names.addAll(inUse.keySet());
        List<SiteState.Image> images = names.stream().map(name -> {
            Counts counts = stored.getOrDefault(name, NOT_STORED);
            InUse use = inUse.get(name);
            return new SiteState.Image(name, identity(counts, use), counts.dataBlocks(), counts.zeroBlocks(), use == null ? 0 : use.connections(), counts.dirtyBlocks(),
                    waiting.getOrDefault(name, Backlog.NONE), carried.byImage().getOrDefault(name, NO_TRAFFIC),
                    pulled.get(name), copied.get(name));
        }).toList();
        return new SiteState(site, started, images, carried.byPeer());
    }

    /** The identity of the stored copy, else of the session: an image still opening may have no copy yet. */
    private static UUID identity(Counts counts, InUse use) {
        return counts.identity() == null && use != null && use.session() != null ? use.session().info().identity() : counts.identity();
    }
}
