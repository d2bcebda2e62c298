package io.heliotrope.storage.image;

import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.BlockStore.Dirty;
import io.heliotrope.storage.view.Background;
import io.heliotrope.storage.view.BlockFetcher;
import io.heliotrope.storage.view.DataView;
import io.heliotrope.storage.view.ReadCounter;
import io.heliotrope.storage.view.WanWaits;
import io.netty.buffer.ByteBufAllocator;

import java.util.concurrent.Executor;

import static java.util.Objects.requireNonNull;

/** Devices that serve an image from this site's store, through its data view. */
public final class DefaultDeviceFactory implements DeviceFactory {
    private final BlockStore store;
    private final BlockFetcher fetcher;
    private final ReplicatorFactory replicators;
    private final ReadCounter reads;
    private final WanWaits waits;
    private final Executor storeCalls;
    private final boolean inlineCalls;
    private final Executor flushes;
    private final ByteBufAllocator allocator;
    private final Background.Factory background;

    /**
     * @param replicators what each image's replication mode does beside the store
     * @param reads counts where read blocks came from
     * @param storeCalls where store calls run; each connection's calls that go there run
     * in order, one at a time
     * @param inlineCalls whether store calls run on the caller (the NBD event loop) instead:
     * for a store that never waits on a disk, where a hand-off to another thread costs more
     * than the call (even a 1 MiB write, whose payload the event loop has just received);
     * what waits for a fetch from a peer then runs its store calls on the thread that completed the fetch
     * @param flushes where FLUSHes run when store calls run inline: a sync waits for the disk, and
     * on an event loop it would hold up every other connection of the loop meanwhile (dbench on
     * ext4 over the export, data on a disk: 321 MB/s syncing on the event loops, 462 MB/s here)
     */
    public DefaultDeviceFactory(BlockStore store, BlockFetcher fetcher, ReplicatorFactory replicators, ReadCounter reads, Executor storeCalls,
            boolean inlineCalls, Executor flushes, ByteBufAllocator allocator) {
        this(store, fetcher, replicators, reads, WanWaits.NONE, storeCalls, inlineCalls, flushes, allocator, Background.Factory.NONE);
    }

    /**
     * As above, with the count of clients' waits for fetches and the background work each
     * view starts (the pull of what the site lacks).
     */
    public DefaultDeviceFactory(BlockStore store, BlockFetcher fetcher, ReplicatorFactory replicators, ReadCounter reads, WanWaits waits, Executor storeCalls,
            boolean inlineCalls, Executor flushes, ByteBufAllocator allocator, Background.Factory background) {
        this.store = requireNonNull(store, "store is null");
        this.fetcher = requireNonNull(fetcher, "fetcher is null");
        this.replicators = requireNonNull(replicators, "replicators is null");
        this.reads = requireNonNull(reads, "reads is null");
        this.waits = requireNonNull(waits, "waits is null");
        this.storeCalls = requireNonNull(storeCalls, "storeCalls is null");
        this.inlineCalls = inlineCalls;
        this.flushes = requireNonNull(flushes, "flushes is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.background = requireNonNull(background, "background is null");
    }

    @Override
    public DataView view(ImageSession session, Dirty dirty) {
        DataView view = new DataView(session, dirty, store, fetcher, replicators.open(session), reads, waits, inlineCalls ? Runnable::run : storeCalls);
        view.startBackground(background);
        return view;
    }

    @Override
    public BlockDevice device(OpenImage image, Runnable onClose) {
        Executor calls = inlineCalls ? Runnable::run : new SerialExecutor(storeCalls);
        return new ImageDevice(image, store, calls, inlineCalls ? flushes : calls, allocator, onClose);
    }
}
