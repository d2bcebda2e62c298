package io.heliotrope.controller.metadata;

import io.heliotrope.controller.zookeeper.ImagePaths;
import io.heliotrope.controller.zookeeper.Versioned;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Materialized views, built from the snapshot and log and cached per image by metaSeq:
 * a cached view that is behind only reads the deltas it lacks.
 */
final class ImageViews {
    private static final int MAX_ATTEMPTS = 8;

    /** A view and the {@code meta} it was built from. */
    record Loaded(Versioned<MetaState> meta, ImageView view) {}

    private final MetadataReader reader;
    private final ViewCache cache;

    ImageViews(MetadataReader reader, ViewCache cache) {
        this.reader = requireNonNull(reader, "reader is null");
        this.cache = requireNonNull(cache, "cache is null");
    }

    Loaded load(String image, ImagePaths paths, long incarnation) {
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            Versioned<MetaState> meta = reader.meta(image, paths);
            Optional<ImageView> view = build(image, paths, incarnation, meta.value());
            if (view.isPresent()) {
                cache.put(image, view.get());
                return new Loaded(meta, view.get());
            }
        }
        throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "image '" + image + "': its metadata was compacted "
                + MAX_ATTEMPTS + " times while being read; try again");
    }

    /** Moves a cached view that is one delta behind to {@code seq}. */
    void advance(String image, long incarnation, long seq, BlockEntries delta) {
        cache.get(image, incarnation)
                .filter(view -> view.metaSeq() == seq - 1)
                .ifPresent(view -> cache.put(image, new ImageView(incarnation, seq, BlockEntries.apply(view.entries(), List.of(delta)))));
    }

    void forget(String image) {
        cache.remove(image);
    }

    private Optional<ImageView> build(String image, ImagePaths paths, long incarnation, MetaState meta) {
        Optional<ImageView> cached = cache.get(image, incarnation);
        if (cached.isPresent() && cached.get().metaSeq() == meta.metaSeq()) {
            return cached;
        }
        boolean catchUp = cached.isPresent() && cached.get().metaSeq() >= meta.snapshotSeq() && cached.get().metaSeq() < meta.metaSeq();
        long from = catchUp ? cached.get().metaSeq() : meta.snapshotSeq();
        Optional<BlockEntries> base = catchUp ? Optional.of(cached.get().entries()) : reader.snapshot(paths, meta.snapshotSeq());
        Optional<List<BlockEntries>> deltas = base.isPresent() ? reader.log(paths, from, meta.metaSeq()) : Optional.empty();
        return deltas.map(log -> new ImageView(incarnation, meta.metaSeq(), BlockEntries.apply(base.get(), log)));
    }
}
