package io.heliotrope.nbd.server;

import io.heliotrope.nbd.ExportCatalog;
import io.heliotrope.nbd.MetaContext;
import io.heliotrope.nbd.codec.NbdHandshakeHandler;
import io.heliotrope.nbd.codec.NbdReplyEncoder;
import io.heliotrope.nbd.codec.PayloadReceiveAllocator;
import io.heliotrope.nbd.tls.NbdTls;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SelectStrategyFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.nio.channels.spi.SelectorProvider;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/** An NBD server on Netty: one listening socket, the exports of one catalog, the metadata contexts it is given. */
public final class NbdServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NbdServer.class);

    private final EventLoopGroup group;
    private final ChannelGroup channels = new DefaultChannelGroup("nbd-connections", GlobalEventExecutor.INSTANCE);
    private final Channel serverChannel;

    /** @param metaContexts offered to clients in this order, e.g. {@link BaseAllocation} */
    public NbdServer(NbdServerConfig config, ExportCatalog catalog, List<MetaContext> metaContexts, NbdMetrics metrics) {
        this(config, catalog, metaContexts, metrics, NbdTls.OFF);
    }

    /** @param tls whether clients may, or must, turn their connections into TLS, and what each identity may open */
    public NbdServer(NbdServerConfig config, ExportCatalog catalog, List<MetaContext> metaContexts, NbdMetrics metrics, NbdTls tls) {
        requireNonNull(tls, "tls is null");
        requireNonNull(config, "config is null");
        requireNonNull(catalog, "catalog is null");
        requireNonNull(metrics, "metrics is null");
        List<MetaContext> contexts = List.copyOf(metaContexts);
        boolean epoll = Epoll.isAvailable();
        SelectStrategyFactory waits = () -> new PollingSelectStrategy(config.poll().toNanos(), System::nanoTime);
        IoHandlerFactory ioHandler = epoll ? EpollIoHandler.newFactory(0, waits) : NioIoHandler.newFactory(SelectorProvider.provider(), waits);
        Class<? extends ServerChannel> channelType = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        group = new MultiThreadIoEventLoopGroup(config.ioThreads(), new DefaultThreadFactory("nbd-io"), ioHandler);
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(group)
                .channel(channelType)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(8 << 20, 32 << 20))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        channels.add(channel);
                        channel.config().setRecvByteBufAllocator(new PayloadReceiveAllocator());
                        channel.pipeline()
                                .addLast("replies", NbdReplyEncoder.INSTANCE)
                                .addLast("handshake", new NbdHandshakeHandler(catalog, contexts, session -> new NbdTransmissionHandler(session, metrics, catalog::translate), tls));
                    }
                });
        try {
            serverChannel = bootstrap.bind(config.bindAddress()).syncUninterruptibly().channel();
        } catch (RuntimeException e) {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw e;
        }
        log.info("NBD server listening on {} ({}, event loops poll for up to {} µs before they sleep, tls: {})", serverChannel.localAddress(),
                epoll ? "epoll" : "nio", config.poll().toNanos() / 1000, tls.mode());
    }

    public InetSocketAddress localAddress() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    @Override
    public void close() {
        serverChannel.close().syncUninterruptibly();
        channels.close().awaitUninterruptibly(10, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
