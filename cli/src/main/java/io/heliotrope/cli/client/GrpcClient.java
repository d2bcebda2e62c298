package io.heliotrope.cli.client;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.GrpcErrors;
import io.heliotrope.error.HeliotropeException;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/** A channel to one Heliotrope process; gRPC failures become {@link HeliotropeException}s here. */
public abstract class GrpcClient implements AutoCloseable {
    static final long DEADLINE_SECONDS = 60;

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
        this.channel = NettyChannelBuilder.forTarget(target.address()).eventLoopGroup(eventLoop).channelType(NioSocketChannel.class).usePlaintext().build();
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
