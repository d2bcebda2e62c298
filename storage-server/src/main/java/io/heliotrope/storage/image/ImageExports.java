package io.heliotrope.storage.image;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.nbd.ExportCatalog;
import io.heliotrope.storage.BlockStore;
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
 * The images of a site as NBD exports. Connections to one image share one
 * {@link OpenImage} and its {@link ImageSession}; an image is open while at least one
 * connection (or import) uses it, and its session ends when the last one leaves.
 * Deleting or resizing an open image is refused.
 */
public final class ImageExports implements ExportCatalog {
    private static final Logger log = LoggerFactory.getLogger(ImageExports.class);

    private final ImageSessions sessions;
    private final BlockStore store;
    private final Executor deviceExecutor;
    private final Executor sessionExecutor;
    private final ByteBufAllocator allocator;
    private final Map<String, OpenImage> open = new HashMap<>();
    /** Sessions still ending, so that a new open of the same image waits for their last flush. */
    private final Map<String, CompletableFuture<Void>> closing = new HashMap<>();

    /**
     * @param deviceExecutor where store calls run; each connection's calls run in order,
     * one at a time, on it. A store that never blocks may pass a direct executor.
     * @param sessionExecutor where sessions start and end (they may wait on the controller)
     */
    public ImageExports(ImageSessions sessions, BlockStore store, Executor deviceExecutor, Executor sessionExecutor, ByteBufAllocator allocator) {
        this.sessions = requireNonNull(sessions, "sessions is null");
        this.store = requireNonNull(store, "store is null");
        this.deviceExecutor = requireNonNull(deviceExecutor, "deviceExecutor is null");
        this.sessionExecutor = requireNonNull(sessionExecutor, "sessionExecutor is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
    }

    @Override
    public List<String> exportNames() {
        return sessions.imageNames();
    }

    @Override
    public CompletableFuture<BlockDevice> open(String name) {
        return CompletableFuture.supplyAsync(() -> openNow(name), sessionExecutor);
    }

    private BlockDevice openNow(String name) {
        CompletableFuture<Void> ending;
        synchronized (this) {
            ending = closing.get(name);
        }
        if (ending != null) {
            ending.exceptionally(failure -> null).join();
        }
        synchronized (this) {
            OpenImage image = open.get(name);
            if (image == null) {
                image = new OpenImage(sessions.open(name));
                open.put(name, image);
                log.info("{}: opened (epoch {})", name, image.session().epoch());
            }
            image.attach();
            return new ImageDevice(image, store, new SerialExecutor(deviceExecutor), allocator, this::release);
        }
    }

    private synchronized void release(OpenImage image) {
        if (!image.detach()) {
            return;
        }
        String name = image.info().name();
        open.remove(name);
        CompletableFuture<Void> ending = CompletableFuture.runAsync(() -> {
            image.session().close();
            log.info("{}: closed", name);
        }, sessionExecutor);
        closing.put(name, ending);
        ending.whenComplete((ignored, failure) -> {
            if (failure != null) {
                log.warn("{}: session did not end cleanly", name, failure);
            }
            synchronized (this) {
                closing.remove(name, ending);
            }
        });
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
