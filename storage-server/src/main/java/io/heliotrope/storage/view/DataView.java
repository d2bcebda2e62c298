package io.heliotrope.storage.view;

import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.BlockStore.BlockRun;
import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.CopyRule;
import io.heliotrope.storage.BlockStore.Dirty;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.view.WanWaits.Cause;
import io.heliotrope.version.Version;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static java.util.Objects.requireNonNull;

/**
 * The blocks of one open image as this site serves them (DESIGN.md sections 3 and 5),
 * shared by every connection to it. A block's local copy is current when its version is
 * the committed one in the view its session synced, or when this site wrote it since;
 * a block whose committed version is a zero marker reads as zeros; any other block is
 * current only at the site that holds it, and the {@link BlockFetcher} brings it here
 * before it is read.
 *
 * <p>While a session holds the image here, its {@link Background} work (the pull of what this
 * site lacks) fetches through the view too ({@link #pull}): one fetch is in flight per block
 * however many ask, and a pulled copy lands only where a read's would.
 *
 * <p>Calls other than {@link #read}, {@link #whenCurrent} and {@link #pull} block on the store: run them
 * where store calls run.
 */
public final class DataView implements PullTarget, AutoCloseable {
    private static final byte[] ZEROS = new byte[BLOCK_SIZE];
    /** 8 MiB: a 1 Gbit/s link with a 75 ms round trip carries about 9 MiB per round trip. */
    static final int READ_AHEAD = 2048;
    private static final int STREAMS = 8;

    private final ImageSession session;
    private final Dirty dirty;
    private final BlockStore store;
    private final BlockFetcher fetcher;
    private final Replicator replicator;
    private final ReadCounter reads;
    private final WanWaits waits;
    private final Executor storeCalls;
    private final long imageId;
    /**
     * A fetched committed version replaces any local copy but this session's own writes:
     * an older copy, and one from a fenced epoch too, whose version may be larger than the
     * committed one (Version: epochs only grow, so this session's writes are the newest).
     */
    private final CopyRule replaceable;
    /** Where each recent sequential stream of reads ended, and how far blocks were fetched ahead of it. */
    private final long[] streamEnds = new long[STREAMS];
    private final long[] streamAhead = new long[STREAMS];
    private int nextStream;
    private volatile Background background = Background.NONE;

    /**
     * @param dirty whether the session's writes join the dirty set
     * @param replicator what the image's replication mode does with its reads and writes
     * @param reads counts where read blocks came from
     * @param waits counts how long clients' requests waited for fetches
     * @param storeCalls where what waited for a fetch runs its store calls
     */
    public DataView(ImageSession session, Dirty dirty, BlockStore store, BlockFetcher fetcher, Replicator replicator, ReadCounter reads,
            WanWaits waits, Executor storeCalls) {
        this.session = requireNonNull(session, "session is null");
        this.dirty = requireNonNull(dirty, "dirty is null");
        this.store = requireNonNull(store, "store is null");
        this.fetcher = requireNonNull(fetcher, "fetcher is null");
        this.replicator = requireNonNull(replicator, "replicator is null");
        this.reads = requireNonNull(reads, "reads is null");
        this.waits = requireNonNull(waits, "waits is null");
        this.storeCalls = requireNonNull(storeCalls, "storeCalls is null");
        this.imageId = session.info().id();
        // Asked at each fetch: a session in a handoff takes its holding when it becomes active.
        this.replaceable = (copy, local) -> local != copy.version() && Version.epochOf(local) < session.holdingEpoch();
        Arrays.fill(streamEnds, -1);
    }

    /**
     * Reads {@code count} whole blocks into {@code destination} once each is current here,
     * fetching the others. Call it where store calls run: with nothing to fetch, it reads
     * at once.
     */
    public CompletableFuture<Void> read(long first, int count, ByteBuffer destination) {
        SortedMap<Long, GlobalBlock> stale;
        List<CompletableFuture<Void>> fetches;
        try {
            session.checkCurrent();
            replicator.read(first, count);
            readAhead(first, count);
            stale = session.stale(first, count);
            fetches = fetch(stale, true);
            reads.read(count - fetches.size(), fetches.size());
            if (fetches.isEmpty()) {
                readCurrent(first, count, destination, stale);
                return CompletableFuture.completedFuture(null);
            }
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return waits.time(Cause.FETCH, CompletableFuture.allOf(fetches.toArray(CompletableFuture[]::new)))
                .thenRunAsync(() -> readCurrent(first, count, destination), storeCalls);
    }

    /**
     * A read that starts where a recent one ended continues a sequential stream, and has
     * the next {@value #READ_AHEAD} blocks fetched ahead of it, half a window at a time: a
     * sequential reader would otherwise wait a WAN round trip for every request. Several
     * streams are followed at once (nbdcopy reads with four connections).
     */
    private void readAhead(long first, int count) {
        long from;
        long until;
        synchronized (streamEnds) {
            int stream = 0;
            while (stream < STREAMS && streamEnds[stream] != first) {
                stream++;
            }
            if (stream == STREAMS) {
                stream = nextStream;
                nextStream = (nextStream + 1) % STREAMS;
                streamEnds[stream] = first + count;
                streamAhead[stream] = first + count;
                return;
            }
            long end = first + count;
            streamEnds[stream] = end;
            if (end < streamAhead[stream] - READ_AHEAD / 2) {
                return;
            }
            from = Math.max(end, streamAhead[stream]);
            until = Math.min(end + READ_AHEAD, session.info().blockCount());
            streamAhead[stream] = until;
        }
        if (until <= from) {
            return;
        }
        // A block that fails to arrive now is fetched again when it is read, and its read reports the failure.
        fetch(session.stale(from, until - from), false);
    }

    /**
     * Asks the fetcher for every stale block but zero markers, at its committed version from
     * its holder; each future completes once its block is current here. The misses of a
     * client's own request (not read-ahead) tell the background pull where the client reads.
     */
    private List<CompletableFuture<Void>> fetch(SortedMap<Long, GlobalBlock> stale, boolean missed) {
        List<GlobalBlock> missing = stale.values().stream().filter(entry -> !entry.zero()).toList();
        if (missing.isEmpty()) {
            return List.of();
        }
        if (missed) {
            background.missed(missing);
        }
        return arrived(missing, fetcher.fetch(session.info(), missing, replaceable));
    }

    @Override
    public List<CompletableFuture<Void>> pull(List<GlobalBlock> blocks) {
        return arrived(blocks, fetcher.fetchInBackground(session.info(), blocks, replaceable));
    }

    @Override
    public boolean inFlight(GlobalBlock block) {
        return fetcher.inFlight(session.info(), block, replaceable);
    }

    /** Each block's arrival, once the session counts it current. */
    private List<CompletableFuture<Void>> arrived(List<GlobalBlock> blocks, List<CompletableFuture<Void>> arrivals) {
        List<CompletableFuture<Void>> fetched = new ArrayList<>(blocks.size());
        for (int i = 0; i < blocks.size(); i++) {
            GlobalBlock entry = blocks.get(i);
            fetched.add(arrivals.get(i).thenRun(() -> session.fetched(entry)));
        }
        return fetched;
    }

    /** Starts the session's background work, which fetches through this view. */
    public void startBackground(Background.Factory work) {
        background = work.open(session, this);
    }

    /** Stops the background work for good: before the session closes. */
    public void stopBackground() {
        background.stop();
    }

    /**
     * Runs {@code action} once every block of the range is current here or a zero marker, and completes as its future does,
     * asking the fetcher for each other block at its committed version from its holder:
     * at once on the caller when there is nothing to fetch, else where store calls run.
     * Fails without running it when the session lost its lease or a fetch failed.
     */
    public CompletableFuture<Void> whenCurrent(long first, long count, Supplier<CompletableFuture<Void>> action) {
        List<CompletableFuture<Void>> fetches;
        try {
            session.checkCurrent();
            fetches = fetch(session.stale(first, count), true);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (fetches.isEmpty()) {
            return CompletableFuture.completedFuture(null).thenCompose(ignored -> action.get());
        }
        return waits.time(Cause.FETCH, CompletableFuture.allOf(fetches.toArray(CompletableFuture[]::new)))
                .thenComposeAsync(ignored -> action.get(), storeCalls);
    }

    /**
     * Reads blocks that are current here or zero markers, as {@link #whenCurrent} leaves
     * them, into {@code destination}, advancing its position.
     */
    public void readCurrent(long first, int count, ByteBuffer destination) {
        readCurrent(first, count, destination, session.stale(first, count));
    }

    private void readCurrent(long first, int count, ByteBuffer destination, SortedMap<Long, GlobalBlock> stale) {
        int start = destination.position();
        store.read(imageId, first, count, destination);
        for (GlobalBlock entry : stale.values()) {
            if (!entry.zero()) {
                throw new IllegalStateException("image '" + session.info().name() + "': block " + entry.block() + " was read before it was fetched");
            }
            destination.put(start + (int) (entry.block() - first) * BLOCK_SIZE, ZEROS, 0, BLOCK_SIZE);
        }
    }

    /**
     * Writes the whole blocks in {@code data} with {@code version}: they are current here
     * from then on. Completes when the replication mode lets the write be acknowledged;
     * {@code data} stays as it is until then.
     */
    public CompletableFuture<Void> write(long first, ByteBuffer data, long version, boolean sync) {
        session.checkCurrent();
        int count = data.remaining() / BLOCK_SIZE;
        ByteBuffer written = data.duplicate();
        store.write(imageId, first, data, version, dirty, sync);
        session.wrote(first, count);
        return replicator.wrote(first, count, version, written);
    }

    /** A {@link #write} queued in the store ({@link BlockStore#queueWrite}). */
    public CompletableFuture<Void> queueWrite(long first, ByteBuffer data, long version, boolean sync) {
        session.checkCurrent();
        int count = data.remaining() / BLOCK_SIZE;
        ByteBuffer written = data.duplicate();
        return store.queueWrite(imageId, first, data, version, dirty, sync).thenCompose(ignored -> {
            session.wrote(first, count);
            return replicator.wrote(first, count, version, written);
        });
    }

    /**
     * Zero markers of {@code version} over whole blocks, including those whose current
     * version this site never had; completes as {@link #write} does.
     */
    public CompletableFuture<Void> zero(long first, long count, long version, boolean sync) {
        session.checkCurrent();
        SortedMap<Long, GlobalBlock> stale = session.stale(first, count);
        store.zero(imageId, first, count, version, dirty, sync && stale.isEmpty());
        if (!stale.isEmpty()) {
            // The store leaves blocks it never had as they are; these must read as zeros too.
            store.zeroBlocks(imageId, stale.keySet().stream().mapToLong(Long::longValue).toArray(), version, dirty, sync);
        }
        session.wrote(first, count);
        return replicator.wrote(first, count, version, null);
    }

    /**
     * Where each block of the range is read from, as runs in block order covering all of
     * it (adjacent runs may share a place): here, another site, or nowhere (it reads as zeros).
     */
    public List<PlaceRun> placement(long first, long count) {
        SortedMap<Long, GlobalBlock> stale = session.stale(first, count);
        List<PlaceRun> runs = new ArrayList<>();
        for (BlockRun run : store.allocation(imageId, first, count)) {
            Place local = run.state() == BlockState.DATA ? Place.HERE : Place.NOWHERE;
            long next = run.firstBlock();
            for (GlobalBlock entry : stale.subMap(run.firstBlock(), run.firstBlock() + run.count()).values()) {
                if (entry.block() > next) {
                    runs.add(new PlaceRun(next, entry.block() - next, local));
                }
                runs.add(new PlaceRun(entry.block(), 1, entry.zero() ? Place.NOWHERE : Place.ELSEWHERE));
                next = entry.block() + 1;
            }
            if (run.firstBlock() + run.count() > next) {
                runs.add(new PlaceRun(next, run.firstBlock() + run.count() - next, local));
            }
        }
        return runs;
    }

    /** Where a block is read from. */
    public enum Place {
        /** This site's copy is current. */
        HERE,
        /** The current version is at another site: a read fetches it first. */
        ELSEWHERE,
        /** It reads as zeros (a zero marker, or never written): there is nothing to fetch. */
        NOWHERE
    }

    public record PlaceRun(long firstBlock, long count, Place place) {}

    /** The state of each block in the range as this site serves it: a block not current here is as its committed version is. */
    public List<BlockRun> allocation(long first, long count) {
        List<BlockRun> runs = store.allocation(imageId, first, count);
        SortedMap<Long, GlobalBlock> stale = session.stale(first, count);
        if (stale.isEmpty()) {
            return runs;
        }
        List<BlockRun> merged = new ArrayList<>();
        for (BlockRun run : runs) {
            long next = run.firstBlock();
            for (GlobalBlock entry : stale.subMap(run.firstBlock(), run.firstBlock() + run.count()).values()) {
                BlockRun.append(merged, next, entry.block() - next, run.state());
                BlockRun.append(merged, entry.block(), 1, entry.zero() ? (entry.version() == 0 ? BlockState.UNWRITTEN : BlockState.ZERO) : BlockState.DATA);
                next = entry.block() + 1;
            }
            BlockRun.append(merged, next, run.firstBlock() + run.count() - next, run.state());
        }
        return merged;
    }

    /** A FLUSH: completes once every write acknowledged before it is durable here, by the image's mode ({@link Replicator#flush}). */
    public CompletableFuture<Void> flush(Supplier<CompletableFuture<Void>> storeSync) {
        return replicator.flush(storeSync);
    }

    /** The image closes here, its session ended: its replication mode closes. */
    @Override
    public void close() {
        replicator.close();
    }
}
