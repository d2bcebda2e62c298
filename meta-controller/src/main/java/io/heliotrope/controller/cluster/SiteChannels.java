package io.heliotrope.controller.cluster;

import io.grpc.ConnectivityState;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/** One channel to each site address, made on first use and kept until no registered site has that address. */
final class SiteChannels implements AutoCloseable {
    private final Map<String, ManagedChannel> channels = new HashMap<>();

    synchronized ManagedChannel channel(String address) {
        ManagedChannel channel = channels.computeIfAbsent(address, target -> Grpc.newChannelBuilder(target, InsecureChannelCredentials.create()).build());
        if (channel.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
            // A site that was down may be back: try it now, not after a reconnect backoff of up to two minutes.
            channel.resetConnectBackoff();
        }
        return channel;
    }

    /** Closes the channels to addresses not in {@code addresses}. */
    synchronized void retain(Set<String> addresses) {
        channels.entrySet().removeIf(entry -> {
            boolean gone = !addresses.contains(entry.getKey());
            if (gone) {
                entry.getValue().shutdownNow();
            }
            return gone;
        });
    }

    @Override
    public void close() {
        retain(Set.of());
    }
}
