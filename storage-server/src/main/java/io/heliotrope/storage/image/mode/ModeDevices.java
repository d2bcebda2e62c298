package io.heliotrope.storage.image.mode;

import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.storage.BlockStore.Dirty;
import io.heliotrope.storage.image.DeviceFactory;
import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.storage.image.OpenImage;
import io.heliotrope.storage.peer.Peers;
import io.heliotrope.storage.view.DataView;
import io.heliotrope.storage.view.ReadCounter;
import io.heliotrope.storage.view.ViewCache;
import io.heliotrope.storage.view.WanWaits;
import io.netty.buffer.ByteBufAllocator;

import java.util.concurrent.Executor;

import static java.util.Objects.requireNonNull;

/**
 * The devices of the replication modes that do not serve an image from this site's store
 * (DESIGN.md section 6), as a decorator of the devices that do: a connection to a
 * {@code remote} image at a site other than its home gets a {@link RemoteDevice}; every
 * other connection the store's device. The modes that keep local copies act beside the
 * store's devices instead ({@link ModeReplicators}).
 */
public final class ModeDevices implements DeviceFactory {
    private final DeviceFactory store;
    private final Peers peers;
    private final ViewCache view;
    private final ReadCounter reads;
    private final WanWaits waits;
    private final Executor lookups;
    private final ByteBufAllocator allocator;

    /**
     * @param store the devices that serve images from this site's store
     * @param reads counts where a remote device's reads came from: all but zeros from the home
     * @param waits counts how long a remote device's requests waited for the home
     * @param lookups where a remote device's calls that look into the view run
     */
    public ModeDevices(DeviceFactory store, Peers peers, ViewCache view, ReadCounter reads, WanWaits waits, Executor lookups, ByteBufAllocator allocator) {
        this.store = requireNonNull(store, "store is null");
        this.peers = requireNonNull(peers, "peers is null");
        this.view = requireNonNull(view, "view is null");
        this.reads = requireNonNull(reads, "reads is null");
        this.waits = requireNonNull(waits, "waits is null");
        this.lookups = requireNonNull(lookups, "lookups is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
    }

    /** The store's view, which a remote device leaves unused but for its close. */
    @Override
    public DataView view(ImageSession session, Dirty dirty) {
        return store.view(session, dirty);
    }

    @Override
    public BlockDevice device(OpenImage image, Runnable onClose) {
        return image.session().remoteWrites()
                .<BlockDevice>map(writes -> new RemoteDevice(image, writes, peers, view, reads, waits, lookups, allocator, onClose))
                .orElseGet(() -> store.device(image, onClose));
    }
}
