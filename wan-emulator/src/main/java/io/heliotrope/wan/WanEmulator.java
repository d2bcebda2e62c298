package io.heliotrope.wan;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * The WAN between sites that all run on one machine: named links (one per ordered pair of
 * sites, and one per site to the controller), all served by one small event loop group.
 */
public final class WanEmulator implements AutoCloseable {
    private final EventLoopGroup group;
    private final Map<String, WanLink> links = new ConcurrentHashMap<>();

    public WanEmulator() {
        this(2);
    }

    public WanEmulator(int threads) {
        if (threads <= 0) {
            throw new IllegalArgumentException("threads must be positive: " + threads);
        }
        group = new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory("wan"), NioIoHandler.newFactory());
    }

    /** Opens a link listening on {@code listen} (port 0 picks one; see {@link WanLink#listenAddress}). */
    public WanLink addLink(String name, InetSocketAddress listen, InetSocketAddress target, LinkConfig config) {
        requireNonNull(name, "name is null");
        synchronized (links) {
            if (links.containsKey(name)) {
                throw new IllegalArgumentException("link " + name + " already exists");
            }
            WanLink link = new WanLink(name, group, listen, target, config);
            links.put(name, link);
            return link;
        }
    }

    public WanLink link(String name) {
        WanLink link = links.get(requireNonNull(name, "name is null"));
        if (link == null) {
            throw new IllegalArgumentException("no link named " + name);
        }
        return link;
    }

    /**
     * Closes the link: its connections close without delivering what was in flight, and it stops
     * listening. The port may still take a connection (and reset it) until the event loop's next
     * select, when NIO really closes a registered socket.
     */
    public void removeLink(String name) {
        synchronized (links) {
            link(name).close();
            links.remove(name);
        }
    }

    public List<WanLink> links() {
        return List.copyOf(links.values());
    }

    @Override
    public void close() {
        synchronized (links) {
            links.values().forEach(WanLink::close);
            links.clear();
        }
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
