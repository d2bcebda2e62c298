package io.heliotrope.wan;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static java.util.Objects.requireNonNull;

/**
 * A listening socket whose every connection is forwarded to one target across an emulated link
 * (see {@link LinkConfig}): "forward" carries what clients send, "backward" what the target
 * answers. Each direction's bandwidth is shared by all connections of the link; the window is per
 * connection. Thread-safe.
 */
public final class WanLink {
    private static final Logger log = LoggerFactory.getLogger(WanLink.class);

    private final String name;
    private final InetSocketAddress target;
    private final LinkDirection forward = new LinkDirection();
    private final LinkDirection backward = new LinkDirection();
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final Channel server;
    private volatile LinkConfig config;
    private volatile boolean blackholed;
    private volatile boolean backwardHeld;

    WanLink(String name, EventLoopGroup group, InetSocketAddress listen, InetSocketAddress target, LinkConfig config) {
        this.name = requireNonNull(name, "name is null");
        this.target = requireNonNull(target, "target is null");
        this.config = requireNonNull(config, "config is null");
        ChannelFuture bound = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                // Nothing is read before the target is connected; the delay lines then read.
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        accepted(channel);
                    }
                })
                .bind(requireNonNull(listen, "listen is null"))
                .awaitUninterruptibly();
        if (!bound.isSuccess()) {
            throw new IllegalStateException("link " + name + ": cannot listen on " + listen, bound.cause());
        }
        server = bound.channel();
        log.info("{}: listening on {} for {} ({})", this, server.localAddress(), target, config);
    }

    public String name() {
        return name;
    }

    /** The bound address, with the port picked when 0 was asked for. */
    public InetSocketAddress listenAddress() {
        return (InetSocketAddress) server.localAddress();
    }

    public InetSocketAddress target() {
        return target;
    }

    public LinkConfig config() {
        return config;
    }

    /** Applies to bytes that depart from now on; bytes already on the link keep their schedule. */
    public void setConfig(LinkConfig config) {
        this.config = requireNonNull(config, "config is null");
        log.info("{}: now {}", this, config);
        resumeAll();
    }

    public boolean blackholed() {
        return blackholed;
    }

    /**
     * Partitions the link ({@code true}) or heals it: while partitioned, connections stay open but
     * nothing is read or delivered; what was on its way is held and delivered after healing.
     */
    public void setBlackhole(boolean blackholed) {
        this.blackholed = blackholed;
        log.info("{}: {}", this, blackholed ? "partitioned" : "healed");
        resumeAll();
    }

    /**
     * Holds only what the target answers ({@code true}), or lets it go: requests still arrive,
     * their replies are held as a partition holds them, and delivered once let go.
     */
    public void setBackwardHold(boolean held) {
        this.backwardHeld = held;
        log.info("{}: {}", this, held ? "holding replies" : "replies let go");
        resumeAll();
    }

    /** Whether nothing crosses the link in {@code direction} now. */
    boolean holds(LinkDirection direction) {
        return blackholed || (backwardHeld && direction == backward);
    }

    /**
     * Drops every connection with what it had in flight, as a broken path would (both ends see
     * their connection closed); the link still listens, so clients may connect again.
     */
    public void dropConnections() {
        abortAll();
        log.info("{}: connections dropped", this);
    }

    /** Bytes delivered to the target. */
    public long forwardBytes() {
        return forward.deliveredBytes();
    }

    /** Bytes delivered back to clients. */
    public long backwardBytes() {
        return backward.deliveredBytes();
    }

    public int openConnections() {
        return connections.size();
    }

    /** Stops listening and drops every connection with what it had in flight. */
    void close() {
        server.close().syncUninterruptibly();
        abortAll();
        log.info("{}: closed after {} bytes forward, {} backward", this, forwardBytes(), backwardBytes());
    }

    @Override
    public String toString() {
        return "link " + name;
    }

    LinkDirection forward() {
        return forward;
    }

    LinkDirection backward() {
        return backward;
    }

    ChannelFuture connectTarget(EventLoop eventLoop, ChannelHandler handler) {
        return new Bootstrap()
                .group(eventLoop)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(handler)
                .connect(target);
    }

    private void accepted(SocketChannel channel) {
        Connection connection = new Connection(this, channel);
        connections.add(connection);
        channel.closeFuture().addListener(closed -> connections.remove(connection));
        channel.pipeline().addLast(new Endpoint(connection, true));
    }

    private void abortAll() {
        for (Connection connection : connections) {
            connection.client().eventLoop().submit(connection::abort).syncUninterruptibly();
        }
    }

    private void resumeAll() {
        for (Connection connection : connections) {
            connection.client().eventLoop().execute(connection::resume);
        }
    }
}
