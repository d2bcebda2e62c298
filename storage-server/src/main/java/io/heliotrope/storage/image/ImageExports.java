package io.heliotrope.storage.image;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.nbd.ExportCatalog;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.ImageInfo;
import io.netty.buffer.ByteBufAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * The images of a store as NBD exports. Connections to one image share one
 * {@link OpenImage}; an image is open while at least one connection (or import) uses
 * it. Deleting or resizing an open image is refused.
 */
public final class ImageExports implements ExportCatalog {
    private static final Logger log = LoggerFactory.getLogger(ImageExports.class);

    private final BlockStore store;
    private final Executor executor;
    private final ByteBufAllocator allocator;
    private final Map<String, OpenImage> open = new HashMap<>();

    /**
     * @param executor where store calls run; each connection's calls run in order, one
     * at a time, on it. A store that never blocks may pass a direct executor.
     */
    public ImageExports(BlockStore store, Executor executor, ByteBufAllocator allocator) {
        this.store = requireNonNull(store, "store is null");
        this.executor = requireNonNull(executor, "executor is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
    }

    @Override
    public List<String> exportNames() {
        return store.listImages().stream().map(ImageInfo::name).toList();
    }

    @Override
    public CompletableFuture<BlockDevice> open(String name) {
        return CompletableFuture.supplyAsync(() -> openNow(name), executor);
    }

    private synchronized BlockDevice openNow(String name) {
        OpenImage image = open.get(name);
        if (image == null) {
            image = new OpenImage(store.image(name), store);
            open.put(name, image);
            log.info("{}: opened", name);
        }
        image.attach();
        return new ImageDevice(image, store, new SerialExecutor(executor), allocator, this::release);
    }

    private synchronized void release(OpenImage image) {
        if (image.detach()) {
            open.remove(image.info().name());
            log.info("{}: closed", image.info().name());
        }
    }

    /** Runs a catalog change that needs the image closed, refusing while it is open. */
    public synchronized <T> T whileClosed(String name, Supplier<T> change) {
        OpenImage image = open.get(name);
        if (image != null) {
            throw new HeliotropeException(ErrorCode.IMAGE_IN_USE,
                    "image '" + name + "' is in use by " + image.connections() + " connection(s); disconnect them first");
        }
        return change.get();
    }
}
