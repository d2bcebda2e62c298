package io.heliotrope.scheduler.runner;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A site's disks for a runner under test: handovers answered by {@code handover} (per image),
 * activations completed by the test ({@link #activate}); every call recorded in order.
 */
public final class TestingSiteDisks implements SiteDisks {
    private final InetSocketAddress nbd;
    private final Function<String, CompletableFuture<Void>> handover;
    private final Map<String, CompletableFuture<Void>> active = new ConcurrentHashMap<>();
    private final BlockingQueue<String> calls = new LinkedBlockingQueue<>();

    public TestingSiteDisks(InetSocketAddress nbd, Function<String, CompletableFuture<Void>> handover) {
        this.nbd = nbd;
        this.handover = handover;
    }

    @Override
    public InetSocketAddress nbdAddress() {
        return nbd;
    }

    @Override
    public CompletableFuture<Void> handover(String image, String toSite, Duration deadline) {
        CompletableFuture<Void> result = handover.apply(image);
        // Recorded once the answer is made, so that a test that sees the call sees what it did.
        calls.add("handover " + image + " to " + toSite);
        return result;
    }

    @Override
    public CompletableFuture<Void> active(String image) {
        calls.add("active " + image);
        return future(image);
    }

    /** Lets {@code active(image)} complete. */
    public void activate(String image) {
        future(image).complete(null);
    }

    /** The next call made, as "handover IMAGE to SITE" or "active IMAGE". */
    public String nextCall(Duration timeout) throws InterruptedException {
        String call = calls.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (call == null) {
            throw new AssertionError("no call within " + timeout);
        }
        return call;
    }

    public boolean called() {
        return !calls.isEmpty();
    }

    private CompletableFuture<Void> future(String image) {
        return active.computeIfAbsent(image, key -> new CompletableFuture<>());
    }
}
