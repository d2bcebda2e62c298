package io.heliotrope.storage.peer;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.Copy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/** Peers whose calls go straight to the peer services of sites in this process; a site set down answers nothing. */
final class TestingLocalPeers implements Peers {
    private final Map<String, PeerService> sites = new ConcurrentHashMap<>();
    private final Set<String> down = ConcurrentHashMap.newKeySet();

    void add(String site, PeerService service) {
        sites.put(site, service);
    }

    void down(String site) {
        down.add(site);
    }

    void up(String site) {
        down.remove(site);
    }

    @Override
    public CompletableFuture<List<Copy>> fetch(String site, ImageRef image, List<Wanted> wanted) {
        return call(site, () -> sites.get(site).fetch(image, wanted));
    }

    @Override
    public CompletableFuture<boolean[]> push(String site, ImageRef image, List<Copy> copies) {
        return call(site, () -> sites.get(site).push(image, copies));
    }

    @Override
    public CompletableFuture<Long> fence(String site, ImageRef image, long belowEpoch) {
        return call(site, () -> sites.get(site).fence(image, belowEpoch));
    }

    @Override
    public CompletableFuture<List<BlockVersion>> collect(String site, ImageRef image, long firstEpoch, long lastEpoch) {
        return call(site, () -> sites.get(site).collect(image, firstEpoch, lastEpoch));
    }

    @Override
    public CompletableFuture<Duration> ping(String site) {
        return call(site, () -> CompletableFuture.completedFuture(Duration.ZERO));
    }

    private <T> CompletableFuture<T> call(String site, Supplier<CompletableFuture<T>> call) {
        if (down.contains(site) || !sites.containsKey(site)) {
            return CompletableFuture.failedFuture(new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "site " + site + " did not answer"));
        }
        return call.get();
    }

    @Override
    public void close() {}
}
