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
import java.util.stream.Stream;

/**
 * The connections to each peer site: {@code connections} channels per site for every call,
 * and {@code bulkConnections} more that only background pulls use (so a foreground fetch
 * never waits behind a pull's data in a connection's flow-control window), made on first
 * use at the address the site directory gives, and made again when that address changes
 * (the old ones finish the calls they carry, then close). A channel connects on its first call.
 */
final class SiteChannels implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SiteChannels.class);

    private final String localSite;
    private final SiteDirectory directory;
    private final PeerMetrics metrics;
    private final int connections;
    private final int bulkConnections;
    private final Map<String, Site> sites = new HashMap<>();
    private boolean closed;

    SiteChannels(String localSite, SiteDirectory directory, PeerMetrics metrics, int connections, int bulkConnections) {
        this.localSite = localSite;
        this.directory = directory;
        this.metrics = metrics;
        this.connections = connections;
        this.bulkConnections = bulkConnections;
    }

    /**
     * {@code count} channels to {@code site}, each a different connection as far as there are
     * enough, starting from the one after those the last call took.
     */
    List<ManagedChannel> next(String site, int count) {
        return take(site(site).channels, count);
    }

    /** As {@link #next}, from the connections that carry background pulls only. */
    List<ManagedChannel> nextBulk(String site, int count) {
        return take(site(site).bulk, count);
    }

    private Site site(String site) {
        String address = directory.grpcAddress(site)
                .orElseThrow(() -> new HeliotropeException(ErrorCode.SITE_NOT_FOUND, "site " + site + " is not in the site registry"));
        return at(site, address);
    }

    private static List<ManagedChannel> take(Lane lane, int count) {
        int first = lane.next.getAndAdd(count);
        List<ManagedChannel> taken = IntStream.range(first, first + count)
                .mapToObj(i -> lane.channels.get(Math.floorMod(i, lane.channels.size())))
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
            known.all().forEach(ManagedChannel::shutdown);
        }
        Site made = new Site(address, lane(site, address, connections), lane(site, address, bulkConnections));
        sites.put(site, made);
        return made;
    }

    private Lane lane(String site, String address, int count) {
        return new Lane(IntStream.range(0, count).mapToObj(i -> channel(site, address)).toList(), new AtomicInteger());
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
        sites.values().forEach(site -> site.all().forEach(ManagedChannel::shutdownNow));
        sites.clear();
    }

    private record Site(String address, Lane channels, Lane bulk) {
        List<ManagedChannel> all() {
            return Stream.concat(channels.channels.stream(), bulk.channels.stream()).toList();
        }
    }

    /** Channels that calls take turns on. */
    private record Lane(List<ManagedChannel> channels, AtomicInteger next) {}
}
