package io.heliotrope.storage.propagation;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.peer.AbstractTestingPeers;
import io.heliotrope.storage.peer.Peers;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Peers that record the pushes they get. A push completes at once, storing every copy,
 * unless its site was told to fail, a copy's block to be refused, or a link was set: then it
 * completes on the scheduler after the link has carried it, one push after the other at
 * the link's rate, plus a round trip. A push to a site cut off waits: it arrives when the cut
 * heals, or fails at its timeout as a gRPC deadline would.
 */
final class TestingPeers extends AbstractTestingPeers {
    private final TestingScheduler scheduler;
    private final List<Push> pushes = new ArrayList<>();
    private final Set<String> failing = new HashSet<>();
    private final Set<Long> refused = new HashSet<>();
    private final List<Long> failedAt = new ArrayList<>();
    private final Map<String, List<Runnable>> cut = new HashMap<>();
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

    /** When each push that failed at once was made (clock millis). */
    synchronized List<Long> failedAt() {
        return List.copyOf(failedAt);
    }

    /** Holds the pushes to {@code site} from now on, and those under way, until {@link #heal}. */
    synchronized void cut(String site) {
        cut.putIfAbsent(site, new ArrayList<>());
    }

    /** Lets the pushes held for {@code site} arrive, in the order they were made, and the later ones through. */
    void heal(String site) {
        List<Runnable> held;
        synchronized (this) {
            held = cut.remove(site);
        }
        if (held != null) {
            held.forEach(Runnable::run);
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
    public CompletableFuture<boolean[]> push(String site, ImageRef image, List<Copy> copies) {
        return push(site, image, copies, Duration.ofDays(1));
    }

    @Override
    public synchronized CompletableFuture<boolean[]> push(String site, ImageRef image, List<Copy> copies, Duration timeout) {
        Clock clock = scheduler.clock();
        if (failing.contains(site)) {
            failedAt.add(clock.millis());
            return CompletableFuture.failedFuture(new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "site " + site + " does not answer"));
        }
        List<Runnable> held = cut.get(site);
        if (held != null) {
            CompletableFuture<boolean[]> arrived = new CompletableFuture<>();
            held.add(() -> arrived.complete(arrive(site, image, copies)));
            Runnable deadline = () -> arrived.completeExceptionally(new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "deadline passed"));
            scheduler.schedule(deadline, timeout.toNanos(), TimeUnit.NANOSECONDS);
            return arrived;
        }
        if (roundTrip == null) {
            return CompletableFuture.completedFuture(arrive(site, image, copies));
        }
        Push push = record(site, image, copies);
        boolean[] stored = stored(copies);
        long now = TimeUnit.MILLISECONDS.toNanos(clock.millis());
        linkFreeNanos = Math.max(linkFreeNanos, now) + push.bytes() * 1_000_000_000L / linkBytesPerSecond;
        CompletableFuture<boolean[]> done = new CompletableFuture<>();
        scheduler.schedule(() -> {
            onPush.accept(push);
            done.complete(stored);
        }, linkFreeNanos - now + roundTrip.toNanos(), TimeUnit.NANOSECONDS);
        return done;
    }

    /** The push as the site gets it: recorded, and each copy stored unless refused. */
    private synchronized boolean[] arrive(String site, ImageRef image, List<Copy> copies) {
        Push push = record(site, image, copies);
        onPush.accept(push);
        return stored(copies);
    }

    private Push record(String site, ImageRef image, List<Copy> copies) {
        Push push = new Push(scheduler.clock().millis(), site, image, copies.stream().map(Pushed::of).toList(), Pusher.cost(copies));
        pushes.add(push);
        return push;
    }

    private boolean[] stored(List<Copy> copies) {
        boolean[] stored = new boolean[copies.size()];
        for (int i = 0; i < stored.length; i++) {
            stored[i] = !refused.contains(copies.get(i).block());
        }
        return stored;
    }
}
