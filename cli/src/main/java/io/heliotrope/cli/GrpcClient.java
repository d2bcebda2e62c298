package io.heliotrope.cli;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.GrpcErrors;
import io.heliotrope.error.HeliotropeException;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/** A channel to one Heliotrope process; gRPC failures become {@link HeliotropeException}s here. */
abstract class GrpcClient implements AutoCloseable {
    static final long DEADLINE_SECONDS = 60;

    final Target target;
    final ManagedChannel channel;

    GrpcClient(Target target) {
        this.target = requireNonNull(target, "target is null");
        this.channel = Grpc.newChannelBuilder(target.address(), InsecureChannelCredentials.create()).build();
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
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
