package io.heliotrope.benchmarks.sun;

import org.apache.zookeeper.client.HostProvider;

import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The servers in a fixed order from a given first one, where ZooKeeper's own provider shuffles
 * them: session {@code i} of a region starts at server {@code i mod n}, so the sessions spread
 * evenly over the servers and two runs place them alike. A session that loses its server tries
 * the next ones in turn, pausing {@code spinDelay} once it has tried them all.
 */
final class OrderedHostProvider implements HostProvider {
    private final List<InetSocketAddress> servers;
    private int next;
    private int triedSinceConnected;

    OrderedHostProvider(List<InetSocketAddress> servers, int first) {
        this.servers = List.copyOf(requireNonNull(servers, "servers is null"));
        if (this.servers.isEmpty()) {
            throw new IllegalArgumentException("no servers");
        }
        this.next = Math.floorMod(first, this.servers.size());
    }

    @Override
    public int size() {
        return servers.size();
    }

    @Override
    public synchronized InetSocketAddress next(long spinDelay) {
        if (triedSinceConnected >= servers.size()) {
            triedSinceConnected = 0;
            pause(spinDelay);
        }
        triedSinceConnected++;
        InetSocketAddress server = servers.get(next);
        next = (next + 1) % servers.size();
        return server;
    }

    @Override
    public synchronized void onConnected() {
        triedSinceConnected = 0;
    }

    /** The servers are fixed for a run: a new list is ignored. */
    @Override
    public boolean updateServerList(Collection<InetSocketAddress> serverAddresses, InetSocketAddress currentHost) {
        return false;
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
