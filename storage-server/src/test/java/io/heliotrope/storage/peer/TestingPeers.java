package io.heliotrope.storage.peer;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.Copy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Peers whose pings answer with round trips a test sets per site, over and over; a site without any does not answer. */
final class TestingPeers implements Peers {
    private record Script(List<Duration> rtts, AtomicInteger next) {}

    private final Map<String, Script> pings = new ConcurrentHashMap<>();

    void answer(String site, Duration... rtts) {
        pings.put(site, new Script(List.of(rtts), new AtomicInteger()));
    }

    @Override
    public CompletableFuture<Long> fence(String site, ImageRef image, long belowEpoch) {
        throw new UnsupportedOperationException("only pings here");
    }

    @Override
    public CompletableFuture<List<BlockVersion>> collect(String site, ImageRef image, long firstEpoch, long lastEpoch) {
        throw new UnsupportedOperationException("only pings here");
    }

    @Override
    public CompletableFuture<Duration> ping(String site) {
        Script script = pings.get(site);
        if (script == null) {
            return CompletableFuture.failedFuture(new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "cannot reach site " + site));
        }
        return CompletableFuture.completedFuture(script.rtts.get(Math.floorMod(script.next.getAndIncrement(), script.rtts.size())));
    }

    @Override
    public CompletableFuture<List<Copy>> fetch(String site, ImageRef image, List<Wanted> wanted) {
        throw new UnsupportedOperationException("only pings here");
    }

    @Override
    public CompletableFuture<boolean[]> push(String site, ImageRef image, List<Copy> copies) {
        throw new UnsupportedOperationException("only pings here");
    }

    @Override
    public void close() {}
}
