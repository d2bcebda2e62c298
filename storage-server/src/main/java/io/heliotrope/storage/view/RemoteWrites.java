package io.heliotrope.storage.view;

import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.BlockVersion;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * The writes of a {@code remote} session away from the image's home (DESIGN.md section 6),
 * shared by the session's connections. Their data is stored at the home only; this site
 * keeps in memory, per block, its latest acknowledged write until a flush commits it (the
 * session's dirty set, whose flushes name the home as holder; a read wants that version
 * rather than the committed one), and the newest version pushed to the home, held there
 * or on its way, which a read that raced a write asks for next.
 */
public final class RemoteWrites implements SessionWrites {
    private final String home;
    private final ViewCache view;
    private final long imageId;
    private final ConcurrentSkipListMap<Long, BlockVersion> acknowledged = new ConcurrentSkipListMap<>();
    private final ConcurrentHashMap<Long, Long> pushed = new ConcurrentHashMap<>();
    /** Per block, the end of the last read-modify-write queued on it; guarded by itself. */
    private final Map<Long, CompletableFuture<Void>> turns = new HashMap<>();
    /** The recording of the home as holding this session's writes; guarded by this. */
    private CompletableFuture<Void> homeRecorded;

    /** @param view the cached view, into which committed flushes go */
    public RemoteWrites(String home, ViewCache view, long imageId) {
        this.home = requireNonNull(home, "home is null");
        this.view = requireNonNull(view, "view is null");
        this.imageId = imageId;
    }

    /** The home site, which stores every block of the image. */
    public String home() {
        return home;
    }

    @Override
    public String holder() {
        return home;
    }

    /** Blocks [first, first + count) at {@code version} are on their way to the home. */
    public void pushing(long first, long count, long version) {
        for (long block = first; block < first + count; block++) {
            pushed.merge(block, version, Math::max);
        }
    }

    /** The home holds blocks [first, first + count) at {@code version}: the write is acknowledged. */
    public void acknowledged(long first, long count, long version, boolean zero) {
        BlockState state = zero ? BlockState.ZERO : BlockState.DATA;
        for (long block = first; block < first + count; block++) {
            acknowledged.merge(block, new BlockVersion(block, version, state), (known, now) -> now.version() > known.version() ? now : known);
        }
    }

    /** This session's latest acknowledged write of {@code block} not yet in the view, or null: then the view has its current version. */
    public BlockVersion latest(long block) {
        return acknowledged.get(block);
    }

    /** The newest version of {@code block} this session pushed to the home, acknowledged or not; 0 when none since the last flush. */
    public long newestPushed(long block) {
        return pushed.getOrDefault(block, 0L);
    }

    @Override
    public List<BlockVersion> unflushed() {
        return List.copyOf(acknowledged.values());
    }

    /**
     * The flushed writes enter the view, and leave this session's memory, unless a newer
     * write of the block came meanwhile; should the view not have taken them (the flush did
     * not directly follow it) they stay, and are flushed again.
     */
    @Override
    public void committed(long metaSeq, List<BlockVersion> flushed) {
        if (StaleBlocks.applyCommitted(view, imageId, home, metaSeq, flushed)) {
            for (BlockVersion block : flushed) {
                acknowledged.remove(block.block(), block);
                pushed.remove(block.block(), block.version());
            }
        }
    }

    /**
     * Records with the lease that the home holds copies of this session's writes
     * ({@link ImageSession#recordSyncSites}), once per session: should this site die, the next
     * opener recovers the unflushed ones from there. A failed recording is asked for again.
     */
    public synchronized CompletableFuture<Void> homeRecorded(ImageSession session) {
        if (homeRecorded == null || homeRecorded.isCompletedExceptionally()) {
            homeRecorded = session.recordSyncSites(Set.of(home));
        }
        return homeRecorded;
    }

    /**
     * Runs {@code action} once every read-modify-write of any block of [first, first + count)
     * queued before it has ended, and completes as its future does: two of them never read
     * the same block before either has written it.
     */
    public <T> CompletableFuture<T> inTurn(long first, int count, Supplier<CompletableFuture<T>> action) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        List<CompletableFuture<Void>> before = new ArrayList<>();
        synchronized (turns) {
            for (long block = first; block < first + count; block++) {
                CompletableFuture<Void> last = turns.put(block, done);
                if (last != null) {
                    before.add(last);
                }
            }
        }
        CompletableFuture<T> result = CompletableFuture.allOf(before.toArray(CompletableFuture[]::new)).thenCompose(ignored -> action.get());
        result.whenComplete((value, failure) -> {
            synchronized (turns) {
                for (long block = first; block < first + count; block++) {
                    turns.remove(block, done);
                }
            }
            done.complete(null);
        });
        return result;
    }
}
