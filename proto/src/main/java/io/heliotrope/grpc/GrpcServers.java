package io.heliotrope.grpc;

import io.grpc.BindableService;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Starts and stops our gRPC servers. A server listens only on the address it is given (the
 * transport-neutral builders take just a port and listen on every interface), and runs its
 * calls on the caller's executor, which the caller closes after the server.
 */
public final class GrpcServers {
    private GrpcServers() {}

    public static Server start(InetSocketAddress address, Executor executor, BindableService service) throws IOException {
        return NettyServerBuilder.forAddress(address, InsecureServerCredentials.create())
                .executor(executor)
                .addService(service)
                .build()
                .start();
    }

    /** Stops accepting calls, gives running ones 5 s, then cancels them. */
    public static void shutdown(Server server) throws InterruptedException {
        server.shutdown();
        if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
            server.shutdownNow();
        }
    }
}
