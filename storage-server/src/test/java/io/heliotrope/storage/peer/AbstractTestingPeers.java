package io.heliotrope.storage.peer;

import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.Copy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** A base for hand-written {@link Peers}: every call a test does not expect fails it. */
public abstract class AbstractTestingPeers implements Peers {
    @Override
    public CompletableFuture<List<Copy>> fetch(String site, ImageRef image, List<Wanted> wanted) {
        throw new UnsupportedOperationException("fetch");
    }

    @Override
    public CompletableFuture<boolean[]> push(String site, ImageRef image, List<Copy> copies) {
        throw new UnsupportedOperationException("push");
    }

    @Override
    public CompletableFuture<Long> fence(String site, ImageRef image, long belowEpoch) {
        throw new UnsupportedOperationException("fence");
    }

    @Override
    public CompletableFuture<List<BlockVersion>> collect(String site, ImageRef image, long firstEpoch, long lastEpoch) {
        throw new UnsupportedOperationException("collect");
    }

    @Override
    public CompletableFuture<Duration> ping(String site) {
        throw new UnsupportedOperationException("ping");
    }

    @Override
    public void close() {}
}
