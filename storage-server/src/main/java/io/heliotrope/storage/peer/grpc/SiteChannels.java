package io.heliotrope.storage.peer.grpc;

import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.peer.PeerMetrics;
import io.heliotrope.storage.peer.SiteDirectory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

/**
 * The connections to each peer site: {@code connections} channels per site, made on first
 * use at the address the site directory gives, and made again when that address changes
 * (the old ones finish the calls they carry, then close).
 */
final class SiteChannels implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SiteChannels.class);

    private final String localSite;
    private final SiteDirectory directory;
    private final PeerMetrics metrics;
    private final int connections;
    private final Map<String, Site> sites = new HashMap<>();
    private boolean closed;

    SiteChannels(String localSite, SiteDirectory directory, PeerMetrics metrics, int connections) {
        this.localSite = localSite;
        this.directory = directory;
        this.metrics = metrics;
        this.connections = connections;
    }

    /**
     * {@code count} channels to {@code site}, each a different connection as far as there are
     * enough, starting from the one after those the last call took.
     */
    List<ManagedChannel> next(String site, int count) {
        String address = directory.grpcAddress(site)
                .orElseThrow(() -> new HeliotropeException(ErrorCode.SITE_NOT_FOUND, "site " + site + " is not in the site registry"));
        Site channels = at(site, address);
        int first = channels.next.getAndAdd(count);
        List<ManagedChannel> taken = IntStream.range(first, first + count)
                .mapToObj(i -> channels.channels.get(Math.floorMod(i, connections)))
                .toList();
        for (ManagedChannel channel : taken) {
            if (channel.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
                // A peer that was down may be back: try it now, not after a backoff of up to two minutes.
                channel.resetConnectBackoff();
            }
        }
        return taken;
    }

    private synchronized Site at(String site, String address) {
        if (closed) {
            throw new HeliotropeException(ErrorCode.SHUTTING_DOWN, "this site's peer client is closed");
        }
        Site known = sites.get(site);
        if (known != null && known.address.equals(address)) {
            return known;
        }
        if (known != null) {
            log.info("{}: peer address changed from {} to {}", site, known.address, address);
            known.channels.forEach(ManagedChannel::shutdown);
        }
        Site made = new Site(address, IntStream.range(0, connections).mapToObj(i -> channel(site, address)).toList(), new AtomicInteger());
        sites.put(site, made);
        return made;
    }

    private ManagedChannel channel(String site, String address) {
        return NettyChannelBuilder.forTarget(address)
                .usePlaintext()
                .flowControlWindow(PeerGrpcService.FLOW_CONTROL_WINDOW)
                .intercept(new ClientTraffic(localSite, site, metrics))
                .build();
    }

    @Override
    public synchronized void close() {
        closed = true;
        sites.values().forEach(site -> site.channels.forEach(ManagedChannel::shutdownNow));
        sites.clear();
    }

    private record Site(String address, List<ManagedChannel> channels, AtomicInteger next) {}
}
