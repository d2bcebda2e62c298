package io.heliotrope.storage.propagation;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.peer.AbstractTestingPeers;
import io.heliotrope.storage.peer.Peers;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Peers that record the pushes they get. A push completes at once, storing every copy,
 * unless its site was told to fail, a copy's block to be refused, or a link was set: then it
 * completes on the scheduler after the link has carried it, one push after the other at
 * the link's rate, plus a round trip.
 */
final class TestingPeers extends AbstractTestingPeers {
    private final TestingScheduler scheduler;
    private final List<Push> pushes = new ArrayList<>();
    private final Set<String> failing = new HashSet<>();
    private final Set<Long> refused = new HashSet<>();
    private Consumer<Push> onPush = push -> {};
    private Duration roundTrip;
    private long linkBytesPerSecond;
    private long linkFreeNanos;

    TestingPeers(TestingScheduler scheduler) {
        this.scheduler = scheduler;
    }

    /** A push as the peer got it, with what it sent of each copy (not all its data: tests push gigabytes). */
    record Push(long millis, String site, ImageRef image, List<Pushed> copies, long bytes) {}

    /** A copy pushed: its block, version, and the first byte of its data; a zero marker has none. */
    record Pushed(long block, long version, boolean zero, byte firstByte) {
        static Pushed of(Copy copy) {
            return new Pushed(copy.block(), copy.version(), copy.zero(), copy.zero() ? 0 : copy.data().get(copy.data().position()));
        }
    }

    synchronized List<Push> pushes() {
        return List.copyOf(pushes);
    }

    synchronized void fail(String site, boolean fail) {
        if (fail) {
            failing.add(site);
        } else {
            failing.remove(site);
        }
    }

    synchronized void refuse(long block) {
        refused.add(block);
    }

    /** Calls {@code action} with each push as it completes. */
    synchronized void onPush(Consumer<Push> action) {
        onPush = action;
    }

    synchronized void link(Duration roundTrip, long bytesPerSecond) {
        this.roundTrip = roundTrip;
        this.linkBytesPerSecond = bytesPerSecond;
    }

    @Override
    public synchronized CompletableFuture<boolean[]> push(String site, ImageRef image, List<Copy> copies) {
        Clock clock = scheduler.clock();
        if (failing.contains(site)) {
            return CompletableFuture.failedFuture(new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "site " + site + " does not answer"));
        }
        Push push = new Push(clock.millis(), site, image, copies.stream().map(Pushed::of).toList(), Pusher.cost(copies));
        pushes.add(push);
        boolean[] stored = new boolean[copies.size()];
        for (int i = 0; i < stored.length; i++) {
            stored[i] = !refused.contains(copies.get(i).block());
        }
        if (roundTrip == null) {
            onPush.accept(push);
            return CompletableFuture.completedFuture(stored);
        }
        long now = TimeUnit.MILLISECONDS.toNanos(clock.millis());
        linkFreeNanos = Math.max(linkFreeNanos, now) + push.bytes() * 1_000_000_000L / linkBytesPerSecond;
        CompletableFuture<boolean[]> done = new CompletableFuture<>();
        scheduler.schedule(() -> {
            onPush.accept(push);
            done.complete(stored);
        }, linkFreeNanos - now + roundTrip.toNanos(), TimeUnit.NANOSECONDS);
        return done;
    }
}
