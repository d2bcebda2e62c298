package io.heliotrope.storage.admin;

import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.image.ImageExports;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/** The administration of a site's images, free of any transport. */
public final class ImageManager {
    public record ImageStatus(ImageInfo info, BlockStore.ImageUsage usage) {}

    private final BlockStore store;
    private final ImageExports exports;
    private final Executor executor;

    public ImageManager(BlockStore store, ImageExports exports, Executor executor) {
        this.store = requireNonNull(store, "store is null");
        this.exports = requireNonNull(exports, "exports is null");
        this.executor = requireNonNull(executor, "executor is null");
    }

    public CompletableFuture<ImageStatus> create(String name, long sizeBytes) {
        return async(() -> status(store.createImage(name, sizeBytes)));
    }

    public CompletableFuture<List<ImageStatus>> list() {
        return async(() -> store.listImages().stream().map(this::status).toList());
    }

    public CompletableFuture<ImageStatus> get(String name) {
        return async(() -> status(store.image(name)));
    }

    public CompletableFuture<Void> delete(String name) {
        return async(() -> exports.whileClosed(name, () -> {
            store.deleteImage(name);
            return null;
        }));
    }

    public CompletableFuture<ImageStatus> resize(String name, long sizeBytes) {
        return async(() -> exports.whileClosed(name, () -> status(store.resizeImage(name, sizeBytes))));
    }

    /** Opens an image as a device for bulk transfer; the caller closes it. */
    public CompletableFuture<BlockDevice> open(String name) {
        return exports.open(name);
    }

    private ImageStatus status(ImageInfo info) {
        return new ImageStatus(info, store.usage(info.id()));
    }

    private <T> CompletableFuture<T> async(Supplier<T> action) {
        return CompletableFuture.supplyAsync(action, executor);
    }
}
