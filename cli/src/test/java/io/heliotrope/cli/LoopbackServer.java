package io.heliotrope.cli;

import io.grpc.BindableService;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;

/** A gRPC server for test doubles, on a free port. */
final class LoopbackServer implements AutoCloseable {
    private final Server server;

    LoopbackServer(BindableService... services) {
        try {
            var builder = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create());
            for (BindableService service : services) {
                builder.addService(service);
            }
            this.server = builder.build().start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String target() {
        return "127.0.0.1:" + server.getPort();
    }

    @Override
    public void close() {
        try {
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
