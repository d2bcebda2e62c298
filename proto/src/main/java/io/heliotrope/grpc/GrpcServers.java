package io.heliotrope.grpc;

import io.grpc.BindableService;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.util.MutableHandlerRegistry;

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
    /** The most often our clients ping a server while calls are under way. */
    public static final long CLIENT_KEEPALIVE_SECONDS = 10;
    private GrpcServers() {}

    public static Server start(InetSocketAddress address, Executor executor, BindableService service) throws IOException {
        return NettyServerBuilder.forAddress(address, InsecureServerCredentials.create())
                .executor(executor)
                .addService(service)
                .build()
                .start();
    }

    /**
     * Starts a server of several services whose HTTP/2 flow-control window is
     * {@code flowControlWindow} bytes, instead of the one that grows by itself up to 8 MiB:
     * a stream that carries bulk data over a WAN gets at most window / RTT.
     */
    public static Server start(InetSocketAddress address, Executor executor, int flowControlWindow, BindableService... services) throws IOException {
        return start(address, executor, flowControlWindow, new MutableHandlerRegistry(), services);
    }

    /** As {@link #start(InetSocketAddress, Executor, int, BindableService...)}, with {@code later} serving services added once it runs. */
    public static Server start(InetSocketAddress address, Executor executor, int flowControlWindow, MutableHandlerRegistry later,
            BindableService... services) throws IOException {
        NettyServerBuilder builder = NettyServerBuilder.forAddress(address, InsecureServerCredentials.create())
                .executor(executor)
                .flowControlWindow(flowControlWindow)
                // Clients ping as often as gRPC lets them during long calls, to find a server that hangs; half that leaves room for jitter.
                .permitKeepAliveTime(CLIENT_KEEPALIVE_SECONDS * 1000 / 2, TimeUnit.MILLISECONDS)
                .fallbackHandlerRegistry(later);
        for (BindableService service : services) {
            builder.addService(service);
        }
        return builder.build().start();
    }

    /** Stops accepting calls, gives running ones 5 s, then cancels them. */
    public static void shutdown(Server server) throws InterruptedException {
        server.shutdown();
        if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
            server.shutdownNow();
        }
    }
}
