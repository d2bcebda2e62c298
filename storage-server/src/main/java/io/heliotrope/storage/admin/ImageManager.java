package io.heliotrope.storage.admin;

import io.heliotrope.concurrent.BoundedExecutors;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.image.ImageExports;
import io.heliotrope.storage.view.StaleBlocks;
import io.heliotrope.storage.view.ViewCache;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/** The administration of a site's images, free of any transport. */
public final class ImageManager {
    /**
     * An image as this site has it; {@code staleByHolder} (holder, or "" for zero or never
     * written, to block count) is filled only for {@link #get} on a site with a controller.
     */
    public record ImageStatus(ImageInfo info, BlockStore.ImageUsage usage, long viewMetaSeq, Map<String, Long> staleByHolder) {}

    private final BlockStore store;
    private final ViewCache view;
    private final ImageExports exports;
    private final ExecutorService executor;
    private final String controller;

    /**
     * @param executor runs admin calls, apart from block store and session calls
     * @param controller the controller that owns the catalog, or null when this site owns it
     */
    public ImageManager(BlockStore store, ViewCache view, ImageExports exports, ExecutorService executor, String controller) {
        this.store = requireNonNull(store, "store is null");
        this.view = requireNonNull(view, "view is null");
        this.exports = requireNonNull(exports, "exports is null");
        this.executor = requireNonNull(executor, "executor is null");
        this.controller = controller;
    }

    public CompletableFuture<ImageStatus> create(String name, long sizeBytes) {
        return async(() -> {
            checkOwnCatalog("create");
            return status(store.createImage(name, sizeBytes));
        });
    }

    public CompletableFuture<List<ImageStatus>> list() {
        return async(() -> store.listImages().stream().map(this::status).toList());
    }

    public CompletableFuture<ImageStatus> get(String name) {
        return async(() -> {
            ImageInfo info = store.image(name);
            if (controller == null) {
                return status(info);
            }
            Map<String, Long> stale = new TreeMap<>();
            StaleBlocks.find(store, view, info.id(), entry -> stale.merge(entry.zero() ? "" : entry.holder(), 1L, Long::sum));
            return new ImageStatus(info, store.usage(info.id()), view.metaSeq(info.id()), stale);
        });
    }

    public CompletableFuture<Void> delete(String name) {
        return async(() -> {
            checkOwnCatalog("remove");
            return exports.whileClosed(name, () -> {
                store.deleteImage(name);
                return null;
            });
        });
    }

    public CompletableFuture<ImageStatus> resize(String name, long sizeBytes) {
        return async(() -> {
            if (controller != null) {
                throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "this site's images belong to the controller at " + controller
                        + ", and resizing them is not supported yet");
            }
            return exports.whileClosed(name, () -> status(store.resizeImage(name, sizeBytes)));
        });
    }

    private void checkOwnCatalog(String action) {
        if (controller != null) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "this site's images are in the catalog of the controller at " + controller
                    + ", which alone can " + action + " them");
        }
    }

    private ImageStatus status(ImageInfo info) {
        return new ImageStatus(info, store.usage(info.id()), view.metaSeq(info.id()), Map.of());
    }

    private <T> CompletableFuture<T> async(Supplier<T> action) {
        return BoundedExecutors.supplyAsync(action, executor, "the site");
    }
}
