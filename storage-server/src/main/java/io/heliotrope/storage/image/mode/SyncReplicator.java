package io.heliotrope.storage.image.mode;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.peer.Peers;
import io.heliotrope.storage.peer.Peers.ImageRef;
import io.heliotrope.storage.view.Replicator;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static java.util.Objects.requireNonNull;

/**
 * The {@code sync} mode (DESIGN.md section 6): a write is acknowledged only once
 * {@code copies} other sites hold it, so losing this site loses no acknowledged write. Each
 * write goes to the first {@code copies} sites of the list; a site that fails or refuses is
 * replaced by the next one. With fewer sites reachable the write fails (EIO), though it
 * is stored here: the client sees an error, never an acknowledgement the mode cannot keep.
 */
final class SyncReplicator implements Replicator {
    private final Peers peers;
    private final ImageRef image;
    private final List<String> sites;
    private final int copies;

    /** @param sites the sites that may take copies, the preferred first */
    SyncReplicator(Peers peers, ImageInfo image, List<String> sites, int copies) {
        this.peers = requireNonNull(peers, "peers is null");
        this.image = new ImageRef(image.identity(), image.name(), image.sizeBytes());
        this.sites = List.copyOf(sites);
        this.copies = copies;
    }

    @Override
    public CompletableFuture<Void> wrote(long first, long count, long version, ByteBuffer data) {
        if (copies == 0) {
            return CompletableFuture.completedFuture(null);
        }
        List<Copy> blocks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            blocks.add(new Copy(first + i, version, data == null ? null : data.slice(data.position() + i * BLOCK_SIZE, BLOCK_SIZE)));
        }
        List<CompletableFuture<Void>> pushes = new ArrayList<>();
        int[] next = {Math.min(copies, sites.size())};
        for (int i = 0; i < next[0]; i++) {
            pushes.add(pushFrom(i, next, blocks, first));
        }
        if (sites.size() < copies) {
            pushes.add(CompletableFuture.failedFuture(tooFew(first)));
        }
        return CompletableFuture.allOf(pushes.toArray(CompletableFuture[]::new));
    }

    /** Pushes to {@code sites[index]}, moving on to the next unused site if it fails. */
    private CompletableFuture<Void> pushFrom(int index, int[] next, List<Copy> blocks, long first) {
        return peers.push(sites.get(index), image, blocks).thenCompose(stored -> {
            for (boolean one : stored) {
                if (!one) {
                    throw new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "site '" + sites.get(index) + "' refused the copy");
                }
            }
            return CompletableFuture.<Void>completedFuture(null);
        }).exceptionallyCompose(failure -> {
            int replacement;
            synchronized (next) {
                replacement = next[0] < sites.size() ? next[0]++ : -1;
            }
            if (replacement < 0) {
                return CompletableFuture.failedFuture(tooFew(first));
            }
            return pushFrom(replacement, next, blocks, first);
        });
    }

    private HeliotropeException tooFew(long first) {
        return new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "image '" + image.name() + "': the write at block " + first
                + " is stored here, but fewer than the " + copies + " other sites its sync mode needs took a copy (sites: " + sites + ")");
    }
}
