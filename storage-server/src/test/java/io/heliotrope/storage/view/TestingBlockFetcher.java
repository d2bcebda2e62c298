package io.heliotrope.storage.view;

import io.heliotrope.storage.BlockStore.CopyRule;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.ImageInfo;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** A fetcher that only records what it is asked for: each fetch completes when the test completes its future. */
final class TestingBlockFetcher implements BlockFetcher {
    record Fetch(String image, long block, long version, String holder, CopyRule replace, CompletableFuture<Void> future, boolean background) {}

    private final List<Fetch> fetches = new ArrayList<>();

    @Override
    public List<CompletableFuture<Void>> fetch(ImageInfo image, List<GlobalBlock> blocks, CopyRule replace) {
        return record(image, blocks, replace, false);
    }

    @Override
    public List<CompletableFuture<Void>> fetchInBackground(ImageInfo image, List<GlobalBlock> blocks, CopyRule replace) {
        return record(image, blocks, replace, true);
    }

    private synchronized List<CompletableFuture<Void>> record(ImageInfo image, List<GlobalBlock> blocks, CopyRule replace, boolean background) {
        List<CompletableFuture<Void>> futures = new ArrayList<>();
        for (GlobalBlock block : blocks) {
            Fetch fetch = new Fetch(image.name(), block.block(), block.version(), block.holder(), replace, new CompletableFuture<>(), background);
            fetches.add(fetch);
            futures.add(fetch.future());
        }
        return futures;
    }

    /** The fetches asked for so far, in order. */
    synchronized List<Fetch> fetches() {
        return List.copyOf(fetches);
    }
}
