package io.heliotrope.storage.peer;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.BlockStore.CopyRule;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.peer.Peers.ImageRef;
import io.heliotrope.storage.peer.Peers.Wanted;
import io.heliotrope.storage.view.BlockFetcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * Fetches blocks from the sites that hold them (DESIGN.md section 5). One fetch is in
 * flight per block and version however many readers miss it, and the misses of one read
 * go to each holder in requests of up to {@value #BATCH} blocks, so a large read costs a
 * round trip, not one per block; concurrent reads' requests travel side by side. A holder that does not answer, or no
 * longer has that version, is replaced by every other site in turn; a block that no site
 * gives within the timeout fails with {@code PEER_UNAVAILABLE} (EIO to the client), and
 * other images and blocks are not held up by it.
 *
 * <p>A fetched copy is stored only where the caller's rule lets it replace the local copy,
 * checked in the same atomic step as the store: it never replaces a write made here meanwhile.
 */
public final class PeerFetcher implements BlockFetcher {
    private static final Logger log = LoggerFactory.getLogger(PeerFetcher.class);
    /** 1 MiB of data a request: large enough to amortize a WAN round trip, small enough to spread over several connections. */
    static final int BATCH = 256;
    /** A site whose fetches fail is named at WARN at most this often; the other failures go to debug. */
    private static final long WARN_EVERY_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final BlockStore store;
    private final Peers peers;
    private final SiteDirectory sites;
    private final PeerMetrics metrics;
    private final Executor executor;
    private final Duration timeout;
    /** How long a fetch that arrived stays joinable: far longer than an asker takes from its look at the stale set to its ask. */
    private static final long ARRIVED_KEPT_NANOS = TimeUnit.SECONDS.toNanos(1);
    private final Map<Key, CompletableFuture<Void>> inFlight = new ConcurrentHashMap<>();
    /** When a failed fetch from each site, and a failed read of each image, was last logged at WARN (System.nanoTime). */
    private final Map<String, Long> warnedAt = new ConcurrentHashMap<>();

    /**
     * @param metrics where copies that arrive for a block already current here are counted
     * @param executor where fetched copies are stored (store calls block)
     * @param timeout how long a block may take to arrive before its read fails
     */
    public PeerFetcher(BlockStore store, Peers peers, SiteDirectory sites, PeerMetrics metrics, Executor executor, Duration timeout) {
        this.store = requireNonNull(store, "store is null");
        this.peers = requireNonNull(peers, "peers is null");
        this.sites = requireNonNull(sites, "sites is null");
        this.metrics = requireNonNull(metrics, "metrics is null");
        this.executor = requireNonNull(executor, "executor is null");
        this.timeout = requireNonNull(timeout, "timeout is null");
    }

    @Override
    public List<CompletableFuture<Void>> fetch(ImageInfo image, List<GlobalBlock> blocks, CopyRule replace) {
        return fetch(image, blocks, replace, false);
    }

    @Override
    public List<CompletableFuture<Void>> fetchInBackground(ImageInfo image, List<GlobalBlock> blocks, CopyRule replace) {
        return fetch(image, blocks, replace, true);
    }

    @Override
    public boolean inFlight(ImageInfo image, GlobalBlock block, CopyRule replace) {
        CompletableFuture<Void> fetch = inFlight.get(new Key(image.id(), block.block(), block.version(), replace));
        return fetch != null && !fetch.isDone();
    }

    /**
     * Joins the fetches in flight of these blocks, versions and rule, and asks the holders for
     * the others, in the background lane or not. A fetch's key leaves the table only once its
     * future completed, and so once the dependents its askers registered ran (their stale
     * bookkeeping), and a second later when it succeeded: a later asker either joins it or
     * finds the block current.
     */
    private List<CompletableFuture<Void>> fetch(ImageInfo image, List<GlobalBlock> blocks, CopyRule replace, boolean background) {
        List<CompletableFuture<Void>> futures = new ArrayList<>(blocks.size());
        Map<String, List<Pending>> byHolder = new LinkedHashMap<>();
        for (GlobalBlock block : blocks) {
            Key key = new Key(image.id(), block.block(), block.version(), replace);
            CompletableFuture<Void> created = new CompletableFuture<>();
            CompletableFuture<Void> existing = inFlight.putIfAbsent(key, created);
            futures.add(existing != null ? existing : created);
            if (existing == null) {
                byHolder.computeIfAbsent(block.holder(), h -> new ArrayList<>())
                        .add(new Pending(block.block(), block.version(), created, remainingSites(block.holder())));
            }
        }
        byHolder.forEach((holder, pendings) -> {
            Route route = new Route(holder, image, replace, background);
            failAfterTimeout(route, pendings);
            request(route, pendings);
        });
        return futures;
    }

    /** One timer for the blocks a call asks of one holder, not one a block: a cold read of 1 GiB asks for 262,144. */
    private void failAfterTimeout(Route route, List<Pending> pendings) {
        ImageInfo image = route.image();
        CompletableFuture.delayedExecutor(timeout.toNanos(), TimeUnit.NANOSECONDS).execute(() -> pendings.forEach(pending -> failed(route, pending,
                new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "image '" + image.name() + "': block " + pending.block()
                        + " (version " + pending.version() + ") did not arrive from site '" + route.site() + "' or any other site within "
                        + timeout.toMillis() + " ms"))));
    }

    /**
     * Completes a fetch and runs its askers' dependents; the key stays a moment longer, so that an asker that saw the
     * block stale just before it arrived joins the finished fetch instead of starting another (read-ahead and the
     * background pull look at thousands of blocks at a time: 146 blocks of a 290 MB pull came twice).
     */
    private void arrived(Route route, Pending pending) {
        pending.future().complete(null);
        CompletableFuture.delayedExecutor(ARRIVED_KEPT_NANOS, TimeUnit.NANOSECONDS).execute(() -> inFlight.remove(route.key(pending), pending.future()));
    }

    private void failed(Route route, Pending pending, Throwable failure) {
        if (pending.future().completeExceptionally(failure)) {
            String image = route.image().name();
            if (warnNow("image " + image)) {
                log.warn("{}: a fetched block failed its reads (EIO to the client; more such failures within 5 s go to debug): {}",
                        image, failure.getMessage());
            } else {
                log.debug("{}: a fetched block failed its reads: {}", image, failure.getMessage());
            }
        }
        inFlight.remove(route.key(pending), pending.future());
    }

    /** The sites to ask after {@code holder}, in the directory's order. */
    private List<String> remainingSites(String holder) {
        List<String> others = new ArrayList<>(sites.others());
        others.remove(holder);
        return others;
    }

    /** Asks {@code route}'s site for the blocks, in requests of at most {@link #BATCH}. */
    private void request(Route route, List<Pending> pendings) {
        for (int from = 0; from < pendings.size(); from += BATCH) {
            List<Pending> batch = pendings.subList(from, Math.min(pendings.size(), from + BATCH));
            List<Wanted> wanted = batch.stream().map(p -> new Wanted(p.block(), p.version())).toList();
            ImageInfo image = route.image();
            (route.background() ? peers.fetchInBackground(route.site(), ImageRef.of(image), wanted) : peers.fetch(route.site(), ImageRef.of(image), wanted))
                    .thenAcceptAsync(copies -> stored(route, batch, copies), executor)
                    .exceptionally(failure -> {
                        HeliotropeException cause = asHeliotrope(failure);
                        logFailure(image, wanted.size(), route.site(), cause);
                        retryElsewhere(route, batch, cause);
                        return null;
                    });
        }
    }

    /** Reads that fail show the client only EIO: the site says why, once in a while per site. */
    private void logFailure(ImageInfo image, int blocks, String site, HeliotropeException cause) {
        if (warnNow(site)) {
            log.warn("{}: fetch of {} blocks from site {} failed (other sites are asked; more such failures within 5 s go to debug): {}",
                    image.name(), blocks, site, cause.getMessage());
        } else {
            log.debug("{}: fetch of {} blocks from site {} failed: {}", image.name(), blocks, site, cause.getMessage());
        }
    }

    /** Whether a failure of {@code subject} is to be logged at WARN: not within 5 s of the last one. */
    private boolean warnNow(String subject) {
        long now = System.nanoTime();
        Long last = warnedAt.get(subject);
        if (last == null || now - last > WARN_EVERY_NANOS) {
            warnedAt.put(subject, now);
            return true;
        }
        return false;
    }

    private void stored(Route route, List<Pending> pendings, List<Copy> copies) {
        Map<Long, Copy> byBlock = new HashMap<>();
        for (Copy copy : copies) {
            byBlock.put(copy.block(), copy);
        }
        List<Copy> arrived = new ArrayList<>();
        List<Pending> found = new ArrayList<>();
        List<Pending> missing = new ArrayList<>();
        for (Pending pending : pendings) {
            Copy copy = byBlock.get(pending.block());
            if (copy != null && copy.version() == pending.version()) {
                arrived.add(copy);
                found.add(pending);
            } else {
                missing.add(pending);
            }
        }
        try {
            store.storeCopies(route.image().id(), arrived, redundantCounted(route), false);
        } catch (RuntimeException e) {
            pendings.forEach(p -> failed(route, p, e));
            return;
        }
        found.forEach(pending -> arrived(route, pending));
        retryElsewhere(route, missing, new HeliotropeException(ErrorCode.BLOCK_NOT_LOCAL, "site '" + route.site() + "' does not have it"));
    }

    /** Asks the next site that may hold each block's version, or fails a block once every site was asked. */
    private void retryElsewhere(Route route, List<Pending> pendings, HeliotropeException failure) {
        Map<String, List<Pending>> bySite = new LinkedHashMap<>();
        for (Pending pending : pendings) {
            if (pending.future().isDone()) {
                continue;
            }
            List<String> remaining = pending.remaining();
            if (remaining.isEmpty()) {
                failed(route, pending, new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "image '" + route.image().name()
                        + "': no site gave block " + pending.block() + " at version " + pending.version() + " (last: site '" + route.site() + "': "
                        + failure.getMessage() + ")", failure));
            } else {
                bySite.computeIfAbsent(remaining.get(0), s -> new ArrayList<>())
                        .add(new Pending(pending.block(), pending.version(), pending.future(), remaining.subList(1, remaining.size())));
            }
        }
        bySite.forEach((site, next) -> request(new Route(site, route.image(), route.replace(), route.background()), next));
    }

    private static HeliotropeException asHeliotrope(Throwable failure) {
        Throwable cause = HeliotropeException.unwrap(failure);
        return cause instanceof HeliotropeException h ? h
                : new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, HeliotropeException.rootMessage(cause), cause);
    }

    /** A fetch for one session joins only that session's: another's rule may keep other local copies. */
    private record Key(long imageId, long block, long version, CopyRule replace) {}

    /**
     * The route's rule, counting the copies that arrive while the local copy already has their
     * version: fetched twice, or pushed meanwhile.
     */
    private CopyRule redundantCounted(Route route) {
        return (copy, localVersion) -> {
            if (localVersion == copy.version()) {
                metrics.redundant(route.site());
            }
            return route.replace().accepts(copy, localVersion);
        };
    }

    /** Where a fetch goes; {@code background} for a background pull's. */
    private record Route(String site, ImageInfo image, CopyRule replace, boolean background) {
        Key key(Pending pending) {
            return new Key(image.id(), pending.block(), pending.version(), replace);
        }
    }

    private record Pending(long block, long version, CompletableFuture<Void> future, List<String> remaining) {}
}
