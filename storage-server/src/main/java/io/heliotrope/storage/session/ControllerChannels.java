package io.heliotrope.storage.session;

import io.grpc.ConnectivityState;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.GrpcErrors;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.grpc.GrpcServers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import static java.util.Objects.requireNonNull;

/**
 * The controllers a site may call (all of one ZooKeeper ensemble, stateless: any of them
 * answers any call), one channel each. A call goes to the controller that answered last;
 * when that one does not answer ({@code PEER_UNAVAILABLE}: refused, reset, no answer within
 * the attempt's deadline, or it cannot reach ZooKeeper itself) the same call goes to the
 * next one, in order, until one answers or every one was tried once. Only calls that can be
 * repeated go through here: a repeat must be harmless or recognised (a flush carries an id).
 *
 * <p>A controller that dies closes its connection: the channel in use leaving {@code READY}
 * tells the listeners at once ({@link #whenLost}), so that the site renews its leases then,
 * through the next controller, rather than at its next renewal. A controller that hangs
 * with its connection open is found by the deadline of the next call, or by the channel's
 * keepalive pings (gRPC allows one per 10 s at most) while a long call waits on it.
 */
final class ControllerChannels implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ControllerChannels.class);
    private static final long KEEPALIVE_SECONDS = GrpcServers.CLIENT_KEEPALIVE_SECONDS;
    private static final long KEEPALIVE_TIMEOUT_SECONDS = 2;

    private final String site;
    private final List<String> targets;
    private final List<ManagedChannel> channels = new ArrayList<>();
    private final List<Runnable> lostListeners = new CopyOnWriteArrayList<>();
    private volatile int current;
    /** When (System.nanoTime) the controller in use was first seen not to answer; 0 while it answers. */
    private final AtomicLong unansweredSince = new AtomicLong();
    private final AtomicLong failovers = new AtomicLong();
    private volatile long lastFailoverNanos;
    private volatile boolean closed;

    /** @param targets host:port of each controller, in the order they are tried; the first is used first */
    ControllerChannels(String site, List<String> targets) {
        this.site = requireNonNull(site, "site is null");
        this.targets = List.copyOf(targets);
        if (this.targets.isEmpty()) {
            throw new IllegalArgumentException("no controller address given");
        }
        for (String target : this.targets) {
            channels.add(Grpc.newChannelBuilder(target, InsecureChannelCredentials.create())
                    .keepAliveTime(KEEPALIVE_SECONDS, TimeUnit.SECONDS)
                    .keepAliveTimeout(KEEPALIVE_TIMEOUT_SECONDS, TimeUnit.SECONDS)
                    .build());
        }
        for (int i = 0; i < channels.size(); i++) {
            watch(i, ConnectivityState.IDLE);
        }
    }

    /** For messages: "controller at HOST:PORT" of the one in use. */
    String describe() {
        return "controller at " + targets.get(current);
    }

    /** The channel of the controller in use, for a call that stays with it (a long wait, a call that fails over by itself). */
    ManagedChannel channel() {
        return channels.get(current);
    }

    /** Runs {@code listener} (on a gRPC thread: it must not block) whenever the connection to the controller in use is lost. */
    void whenLost(Runnable listener) {
        lostListeners.add(requireNonNull(listener, "listener is null"));
    }

    /** How many times calls moved to another controller. */
    long failovers() {
        return failovers.get();
    }

    /** Seconds from the first call the last controller left did not answer to the first answer of the next one; 0 before any. */
    double lastFailoverSeconds() {
        return lastFailoverNanos / 1e9;
    }

    /**
     * Runs {@code rpc} on the channel of the controller in use, then of the next ones while
     * none answers; failures are our errors. Fails with the last controller's error when none
     * answered, naming them all.
     */
    <T> T call(Function<ManagedChannel, T> rpc) {
        int first = current;
        HeliotropeException unanswered = null;
        for (int tried = 0; tried < channels.size(); tried++) {
            int index = (first + tried) % channels.size();
            try {
                T answer = rpc.apply(channels.get(index));
                answered(index);
                return answer;
            } catch (RuntimeException e) {
                HeliotropeException failure = GrpcErrors.toException(e, "controller at " + targets.get(index));
                if (failure.code() != ErrorCode.PEER_UNAVAILABLE) {
                    answered(index);
                    throw failure;
                }
                unansweredSince.compareAndSet(0, System.nanoTime());
                if (unanswered != null) {
                    failure.addSuppressed(unanswered);
                }
                unanswered = failure;
            }
        }
        if (channels.size() == 1) {
            throw unanswered;
        }
        throw new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "no controller answered (" + String.join(", ", targets) + "); the last: "
                + unanswered.getMessage(), unanswered);
    }

    /** Controller {@code index} answered (with a value or our error): calls go to it from now on. */
    private void answered(int index) {
        long since = unansweredSince.getAndSet(0);
        int left = current;
        if (index == left) {
            return;
        }
        current = index;
        failovers.incrementAndGet();
        long took = since == 0 ? 0 : System.nanoTime() - since;
        lastFailoverNanos = took;
        log.warn("site {}: controller at {} stopped answering; calls go to controller at {} now ({} ms from the first call it did not answer)",
                site, targets.get(left), targets.get(index), TimeUnit.NANOSECONDS.toMillis(took));
    }

    /** Watches channel {@code index} from {@code seen} on: losing the connection of the controller in use is told to the listeners. */
    private void watch(int index, ConnectivityState seen) {
        ManagedChannel channel = channels.get(index);
        channel.notifyWhenStateChanged(seen, () -> {
            if (closed) {
                return;
            }
            ConnectivityState now = channel.getState(false);
            if (seen == ConnectivityState.READY && now != ConnectivityState.READY && index == current) {
                unansweredSince.compareAndSet(0, System.nanoTime());
                log.info("site {}: lost the connection to controller at {} ({})", site, targets.get(index), now);
                lostListeners.forEach(Runnable::run);
            }
            watch(index, now);
        });
    }

    @Override
    public void close() {
        closed = true;
        channels.forEach(ManagedChannel::shutdownNow);
    }
}
