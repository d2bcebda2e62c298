package io.heliotrope.storage.view;

import io.heliotrope.storage.BlockStore.CopyRule;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.ImageInfo;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** A fetcher that only records what it is asked for: each fetch completes when the test completes its future. */
final class TestingBlockFetcher implements BlockFetcher {
    record Fetch(String image, long block, long version, String holder, CopyRule replace, CompletableFuture<Void> future) {}

    private final List<Fetch> fetches = new ArrayList<>();

    @Override
    public synchronized List<CompletableFuture<Void>> fetch(ImageInfo image, List<GlobalBlock> blocks, CopyRule replace) {
        List<CompletableFuture<Void>> futures = new ArrayList<>();
        for (GlobalBlock block : blocks) {
            Fetch fetch = new Fetch(image.name(), block.block(), block.version(), block.holder(), replace, new CompletableFuture<>());
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
