package io.heliotrope.cli.client;

import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.GrpcErrors;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.server.SiteConfig;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * A channel to one Heliotrope process; gRPC failures become {@link HeliotropeException}s here.
 * A target of several addresses (controllers of one ensemble, {@code a:7400,b:7400}) is the
 * first of them, in order, that takes a connection (see {@link #firstConnected}): a command is
 * short, and the controller that answers it at its start answers it to its end.
 */
public abstract class GrpcClient implements AutoCloseable {
    static final long DEADLINE_SECONDS = 60;
    /** How long a target of several addresses, all dialled at once, waits for an earlier one to connect rather than take a later one. */
    static final Duration CONNECT_WAIT = Duration.ofSeconds(2);

    final Target target;
    final ManagedChannel channel;
    /**
     * The channel's own event loop, ended with it: gRPC's shared one lives on for a second
     * after its last channel, and a JVM that exits while a thread waits in epoll waits
     * 300 ms for it to leave native code (HotSpot's VM_Exit), on every command.
     */
    private final EventLoopGroup eventLoop = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("helio-grpc", true), NioIoHandler.newFactory());

    GrpcClient(Target target) {
        this.target = requireNonNull(target, "target is null");
        List<String> addresses = addresses(target);
        this.channel = addresses.size() == 1 ? channel(addresses.get(0)) : firstConnected(addresses.stream().map(this::channel).toList());
    }

    private static List<String> addresses(Target target) {
        try {
            return SiteConfig.addresses(target.address());
        } catch (IllegalArgumentException e) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "invalid address of " + target.describe() + ": " + e.getMessage(), e);
        }
    }

    private ManagedChannel channel(String address) {
        return NettyChannelBuilder.forTarget(address).eventLoopGroup(eventLoop).channelType(NioSocketChannel.class).usePlaintext().build();
    }

    /**
     * The first of {@code channels} that connects, once every one before it failed to: a later
     * one connected already is taken at once when the earlier ones have failed, and the first
     * one when none connected within {@link #CONNECT_WAIT} (its calls then say why). The
     * others are shut down.
     */
    private static ManagedChannel firstConnected(List<ManagedChannel> channels) {
        Semaphore changes = new Semaphore(0);
        long deadline = System.nanoTime() + CONNECT_WAIT.toNanos();
        ManagedChannel chosen = null;
        try {
            while (chosen == null) {
                List<ConnectivityState> states = new ArrayList<>();
                for (ManagedChannel channel : channels) {
                    ConnectivityState state = channel.getState(true);
                    channel.notifyWhenStateChanged(state, changes::release);
                    states.add(state);
                }
                chosen = firstReady(channels, states);
                long left = deadline - System.nanoTime();
                if (chosen == null && (left <= 0 || states.stream().allMatch(state -> state == ConnectivityState.TRANSIENT_FAILURE)
                        || !changes.tryAcquire(left, TimeUnit.NANOSECONDS))) {
                    chosen = channels.get(0);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            chosen = channels.get(0);
        }
        for (ManagedChannel channel : channels) {
            if (channel != chosen) {
                channel.shutdownNow();
            }
        }
        return chosen;
    }

    /** The first channel that is ready with every one before it failed, or null. */
    private static ManagedChannel firstReady(List<ManagedChannel> channels, List<ConnectivityState> states) {
        for (int i = 0; i < channels.size(); i++) {
            if (states.get(i) == ConnectivityState.READY) {
                return channels.get(i);
            }
            if (states.get(i) != ConnectivityState.TRANSIENT_FAILURE) {
                return null;
            }
        }
        return null;
    }

    /** The process this client calls. */
    public Target target() {
        return target;
    }

    <T> T call(Supplier<T> rpc) {
        try {
            return rpc.get();
        } catch (StatusRuntimeException e) {
            throw translate(e);
        }
    }

    HeliotropeException translate(Throwable failure) {
        HeliotropeException e = GrpcErrors.toException(failure, target.address());
        // Only when nothing answered: a server that did answer sent its own message.
        if (e.code() == ErrorCode.PEER_UNAVAILABLE && e.getMessage().startsWith("cannot reach " + target.address())) {
            return new HeliotropeException(e.code(), "cannot reach " + target.describe() + ": " + HeliotropeException.rootMessage(e), e);
        }
        return e;
    }

    @Override
    public void close() {
        try {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            eventLoop.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
