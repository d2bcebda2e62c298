package io.heliotrope.storage.image;

import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.nbd.ExportDetails;
import io.heliotrope.nbd.ListedExport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * The images of a site as NBD exports. Connections to one image share one
 * {@link OpenImage}, with its {@link ImageSession} and data view, and each gets a device
 * from the {@link DeviceFactory}; an image is open while at least one
 * connection uses it, and its session ends when the last one leaves. A
 * session starts only after the previous session of the same image has ended, and
 * neither runs under this object's lock (they may wait on the controller).
 * Deleting or resizing an open image is refused. Failures are our own errors; the NBD
 * server sees these images through {@link NbdExports}.
 */
public final class ImageExports {
    private static final Logger log = LoggerFactory.getLogger(ImageExports.class);
    private static final CompletableFuture<Void> ENDED = CompletableFuture.completedFuture(null);

    private final ImageSessions sessions;
    private final DeviceFactory devices;
    private final Executor sessionExecutor;
    /** Images open or opening, with their connection counts. */
    private final Map<String, Use> inUse = new HashMap<>();
    /** Sessions still ending: a new session of the same image starts after them. */
    private final Map<String, CompletableFuture<Void>> ending = new HashMap<>();

    /**
     * An image in use here: how many connections (NBD clients, imports and exports) use it,
     * and its session, null while it is still opening.
     */
    public record InUse(String name, int connections, ImageSession session) {}

    private static final class Use {
        final CompletableFuture<OpenImage> image;
        int connections;

        Use(CompletableFuture<OpenImage> image) {
            this.image = image;
        }
    }

    /** @param sessionExecutor where sessions start, take their next epoch and end (they may wait on the controller) */
    public ImageExports(ImageSessions sessions, DeviceFactory devices, Executor sessionExecutor) {
        this.sessions = requireNonNull(sessions, "sessions is null");
        this.devices = requireNonNull(devices, "devices is null");
        this.sessionExecutor = requireNonNull(sessionExecutor, "sessionExecutor is null");
    }

    /** The images a client may open, described; never blocks (see {@link ImageSessions#list()}). */
    public CompletableFuture<List<ListedExport>> list() {
        return sessions.list();
    }

    /** The images in use now, in name order. */
    public synchronized List<InUse> inUse() {
        return inUse.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .map(entry -> {
                    CompletableFuture<OpenImage> image = entry.getValue().image;
                    ImageSession session = image.isDone() && !image.isCompletedExceptionally() ? image.join().session() : null;
                    return new InUse(entry.getKey(), entry.getValue().connections, session);
                })
                .toList();
    }

    /** What {@code NBD_OPT_INFO} tells of an image, without opening it: its size, and what every connection to an image offers. */
    public CompletableFuture<ExportDetails> details(String name) {
        return sessions.sizeBytes(name).thenApply(AbstractImageDevice::details);
    }

    /** Whether a client may select metadata contexts of {@code name}: answered from memory; an open decides for good. */
    public boolean mayExist(String name) {
        return sessions.mayExist(name);
    }

    /** Opens an image for one connection; closing the device ends that use. */
    public CompletableFuture<BlockDevice> open(String name) {
        CompletableFuture<OpenImage> image;
        synchronized (this) {
            Use use = inUse.get(name);
            if (use == null) {
                use = new Use(ending.getOrDefault(name, ENDED)
                        .handle((ignored, failure) -> null)
                        .thenApplyAsync(ignored -> start(name), sessionExecutor));
                inUse.put(name, use);
            }
            use.connections++;
            image = use.image;
        }
        return image.handle((open, failure) -> {
            if (failure != null) {
                release(name);
                throw failure instanceof CompletionException completion ? completion : new CompletionException(failure);
            }
            return devices.device(open, () -> release(name));
        });
    }

    private OpenImage start(String name) {
        ImageSession session = sessions.open(name);
        OpenImage image = new OpenImage(session, devices.view(session, sessions.dirty()), sessionExecutor);
        log.info("{}: opened (epoch {})", name, image.session().epoch());
        return image;
    }

    private synchronized void release(String name) {
        Use use = inUse.get(name);
        if (--use.connections > 0) {
            return;
        }
        inUse.remove(name);
        CompletableFuture<Void> end = use.image.thenAcceptAsync(image -> {
            // The background pull stops before the final flush; the view (its replication mode) closes after it: what it
            // pushes from then on is committed.
            try {
                image.view().stopBackground();
                image.session().close();
            } finally {
                image.view().close();
            }
            log.info("{}: closed", name);
        }, sessionExecutor);
        ending.put(name, end);
        end.whenComplete((ignored, failure) -> {
            if (failure != null && use.image.isDone() && !use.image.isCompletedExceptionally()) {
                log.warn("{}: session did not end cleanly", name, failure);
            }
            synchronized (this) {
                ending.remove(name, end);
            }
        });
    }

    /**
     * Runs a catalog change that needs the image closed, refusing while it is open and
     * waiting for a session that is still ending (outside the lock, since the end may
     * wait on the controller). Blocks: call it off event loops.
     */
    public <T> T whileClosed(String name, Supplier<T> change) {
        while (true) {
            CompletableFuture<Void> end;
            synchronized (this) {
                Use use = inUse.get(name);
                if (use != null) {
                    throw new HeliotropeException(ErrorCode.IMAGE_IN_USE,
                            "image '" + name + "' is in use by " + use.connections + " connection(s); disconnect them first");
                }
                end = ending.getOrDefault(name, ENDED);
                if (end.isDone()) {
                    return change.get();
                }
            }
            end.handle((ignored, failure) -> null).join();
        }
    }
}
