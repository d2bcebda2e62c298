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

/** A channel to one Heliotrope process; gRPC failures become {@link HeliotropeException}s here. */
abstract class GrpcClient implements AutoCloseable {
    static final long DEADLINE_SECONDS = 60;

    final String target;
    final ManagedChannel channel;
    private final String serverCommand;

    /** @param serverCommand what should be running at {@code target}, for the message when nothing answers */
    GrpcClient(String target, String serverCommand) {
        this.target = target;
        this.serverCommand = serverCommand;
        this.channel = Grpc.newChannelBuilder(target, InsecureChannelCredentials.create()).build();
    }

    <T> T call(Supplier<T> rpc) {
        try {
            return rpc.get();
        } catch (StatusRuntimeException e) {
            throw translate(e);
        }
    }

    HeliotropeException translate(Throwable failure) {
        HeliotropeException e = GrpcErrors.toException(failure, target);
        // Only when nothing answered: a server that did answer sent its own message.
        if (e.code() == ErrorCode.PEER_UNAVAILABLE && e.getMessage().startsWith("cannot reach " + target)) {
            return new HeliotropeException(e.code(), e.getMessage() + "; is `" + serverCommand + "` running there?", e);
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
