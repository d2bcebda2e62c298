package io.heliotrope.benchmarks.sun;

import io.heliotrope.wan.LinkConfig;
import io.heliotrope.wan.WanEmulator;
import io.heliotrope.wan.WanLink;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static java.util.Objects.requireNonNull;

/**
 * The WAN in front of the ZooKeeper servers. Server {@code j} (1-based) at site {@code s}
 * (0-based) listens on {@code 127.0.(s+1).(10+j)}; at every other site a link listens on that
 * site's address of the server and forwards, delayed, to where it is. So every process at a
 * site reaches server {@code j} at its own site's address for it, directly or across the
 * WAN, and a server's configuration depends only on its site.
 */
final class ZkWan implements AutoCloseable {
    enum Port { CLIENT, QUORUM, ELECTION }

    private final WanEmulator emulator = new WanEmulator(2);
    private final LinkConfig link;
    private final List<String> sites;
    private final Map<Port, Integer> ports;
    /** Bytes of removed links, by port kind: forward, backward. */
    private final Map<Port, long[]> closedBytes = new TreeMap<>();

    ZkWan(LinkConfig link, List<String> sites, Map<Port, Integer> ports) {
        this.link = requireNonNull(link, "link is null");
        this.sites = List.copyOf(sites);
        this.ports = Map.copyOf(ports);
        for (Port port : Port.values()) {
            closedBytes.put(port, new long[2]);
        }
    }

    static String host(int site, int server) {
        return "127.0." + (site + 1) + "." + (10 + server);
    }

    InetSocketAddress address(int site, int server, Port port) {
        return new InetSocketAddress(host(site, server), ports.get(port));
    }

    /** Links server {@code server} at {@code site} from every other site; drops its links from before. */
    synchronized void place(int server, int site) {
        for (WanLink existing : emulator.links()) {
            if (existing.name().startsWith(prefix(server))) {
                long[] bytes = closedBytes.get(Port.valueOf(existing.name().substring(existing.name().lastIndexOf('/') + 1)));
                bytes[0] += existing.forwardBytes();
                bytes[1] += existing.backwardBytes();
                emulator.removeLink(existing.name());
            }
        }
        for (int other = 0; other < sites.size(); other++) {
            if (other == site) {
                continue;
            }
            for (Port port : Port.values()) {
                emulator.addLink(prefix(server) + sites.get(other) + "/" + port, address(other, server, port), address(site, server, port), link);
            }
        }
    }

    /** Bytes each way over every link so far, by port kind: {forward, backward}. */
    synchronized Map<Port, long[]> bytes() {
        Map<Port, long[]> total = new TreeMap<>();
        closedBytes.forEach((port, bytes) -> total.put(port, bytes.clone()));
        for (WanLink open : emulator.links()) {
            long[] bytes = total.get(Port.valueOf(open.name().substring(open.name().lastIndexOf('/') + 1)));
            bytes[0] += open.forwardBytes();
            bytes[1] += open.backwardBytes();
        }
        return total;
    }

    private static String prefix(int server) {
        return "zk" + server + "@";
    }

    @Override
    public void close() {
        emulator.close();
    }
}
