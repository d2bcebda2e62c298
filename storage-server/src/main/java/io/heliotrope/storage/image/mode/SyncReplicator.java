package io.heliotrope.storage.image.mode;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.storage.peer.Peers;
import io.heliotrope.storage.peer.Peers.ImageRef;
import io.heliotrope.storage.view.Replicator;
import io.heliotrope.storage.view.WanWaits;
import io.heliotrope.storage.view.WanWaits.Cause;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static java.util.Objects.requireNonNull;

/**
 * The {@code sync} mode (DESIGN.md section 6): a write is acknowledged only once
 * {@code copies} other sites hold it, so losing this site loses no acknowledged write. The
 * writes go to the first {@code copies} sites of the list; a site that fails or refuses is
 * replaced by the next one, for this write and the following ones (it moves to the end
 * of the list). With fewer sites reachable the write fails (EIO), though it is stored
 * here: the client sees an error, never an acknowledgement the mode cannot keep.
 *
 * <p>The sites that hold a write are recorded with the lease before it is acknowledged
 * ({@link ImageSession#recordSyncSites}): should this site die, the next one to open the
 * image recovers the writes from them. Each set of sites is recorded once per session: at
 * the start for the first sites of the list, and again whenever a replacement changes it.
 */
final class SyncReplicator implements Replicator {
    private static final Logger log = LoggerFactory.getLogger(SyncReplicator.class);
    private final Peers peers;
    private final ImageSession session;
    private final ImageRef image;
    private final int copies;
    private final WanWaits waits;
    /** The sites in the order writes try them; guarded by itself. */
    private final List<String> order;
    /** Per set of sites, its recording with the lease; a failed one is dropped, to be asked again. */
    private final Map<Set<String>, CompletableFuture<Void>> recorded = new ConcurrentHashMap<>();

    /**
     * @param sites the sites that may take copies, the preferred first
     * @param waits counts how long writes waited for their copies
     */
    SyncReplicator(Peers peers, ImageSession session, List<String> sites, int copies, WanWaits waits) {
        this.peers = requireNonNull(peers, "peers is null");
        this.session = requireNonNull(session, "session is null");
        this.image = ImageRef.of(session.info());
        this.order = new ArrayList<>(sites);
        this.copies = copies;
        this.waits = requireNonNull(waits, "waits is null");
        if (copies > 0 && sites.size() >= copies) {
            // Now rather than at the first write, which then rarely waits for it.
            record(Set.copyOf(targets()));
        }
    }

    @Override
    public CompletableFuture<Void> wrote(long first, long count, long version, ByteBuffer data) {
        if (copies == 0) {
            return CompletableFuture.completedFuture(null);
        }
        List<String> targets = targets();
        if (targets.size() < copies) {
            return CompletableFuture.failedFuture(tooFew(first));
        }
        List<Copy> blocks = new ArrayList<>();
        // Our own copy: the NBD payload goes back to its pool once the write is answered, and a
        // push that failed over to another site may still be sending from it then.
        ByteBuffer own = data == null ? null : ByteBuffer.allocate(data.remaining()).put(data.duplicate()).flip();
        for (int i = 0; i < count; i++) {
            blocks.add(new Copy(first + i, version, own == null ? null : own.slice(i * BLOCK_SIZE, BLOCK_SIZE)));
        }
        Set<String> tried = ConcurrentHashMap.newKeySet();
        tried.addAll(targets);
        List<CompletableFuture<String>> pushes = targets.stream().map(site -> pushFrom(site, tried, blocks, first)).toList();
        return waits.time(Cause.SYNC, CompletableFuture.allOf(pushes.toArray(CompletableFuture[]::new))
                .thenCompose(ignored -> record(Set.copyOf(pushes.stream().map(CompletableFuture::join).toList()))));
    }

    /** The first {@code copies} sites of the list, or all of them when there are fewer. */
    private List<String> targets() {
        synchronized (order) {
            return List.copyOf(order.subList(0, Math.min(copies, order.size())));
        }
    }

    /**
     * Pushes to {@code site}, moving on to the next site not yet tried if it fails or does
     * not hold every copy (a site holds a copy it refused for holding a newer version: writes
     * to one block in flight together may land out of order); completes with the site that
     * holds the copies.
     */
    private CompletableFuture<String> pushFrom(String site, Set<String> tried, List<Copy> blocks, long first) {
        return peers.push(site, image, blocks).thenApply(held -> {
            for (boolean one : held) {
                if (!one) {
                    throw new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "site '" + site + "' refused the copy");
                }
            }
            return site;
        }).exceptionallyCompose(failure -> {
            String replacement = replace(site, tried);
            // The client sees only EIO if no site is left: say why each one fell through.
            log.warn("{}: the sync copy of {} blocks from block {} did not reach site {}{}: {}", image.name(), blocks.size(), first, site,
                    replacement == null ? " and no other site is left: the write fails" : "; trying site " + replacement,
                    HeliotropeException.rootMessage(failure));
            if (replacement == null) {
                return CompletableFuture.failedFuture(tooFew(first));
            }
            return pushFrom(replacement, tried, blocks, first);
        });
    }

    /** Moves a failed site to the end of the list (unless another write did); returns the first site this write has not tried, or null. */
    private String replace(String failed, Set<String> tried) {
        synchronized (order) {
            if (order.indexOf(failed) < copies) {
                order.remove(failed);
                order.add(failed);
            }
            for (String site : order) {
                if (tried.add(site)) {
                    return site;
                }
            }
            return null;
        }
    }

    private CompletableFuture<Void> record(Set<String> sites) {
        CompletableFuture<Void> known = recorded.get(sites);
        if (known != null) {
            return known;
        }
        CompletableFuture<Void> recording = new CompletableFuture<>();
        known = recorded.putIfAbsent(sites, recording);
        if (known != null) {
            return known;
        }
        session.recordSyncSites(sites).whenComplete((ignored, failure) -> {
            if (failure == null) {
                recording.complete(null);
                return;
            }
            recorded.remove(sites, recording);
            recording.completeExceptionally(new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "image '" + image.name()
                    + "': sites " + new TreeSet<>(sites) + " hold the write, but the controller did not record them as holding its sync copies: "
                    + HeliotropeException.rootMessage(failure), failure));
        });
        return recording;
    }

    private HeliotropeException tooFew(long first) {
        List<String> sites;
        synchronized (order) {
            sites = new ArrayList<>(new TreeSet<>(order));
        }
        return new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "image '" + image.name() + "': the write at block " + first
                + " is stored here, but fewer than the " + copies + " other sites its sync mode needs took a copy (sites: " + sites + ")");
    }
}
