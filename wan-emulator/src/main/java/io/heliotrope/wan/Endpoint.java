package io.heliotrope.wan;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/** The last handler of either channel of a {@link Connection}: hands its events to the two lines. */
final class Endpoint extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(Endpoint.class);

    private final Connection connection;
    private final boolean client;

    Endpoint(Connection connection, boolean client) {
        this.connection = requireNonNull(connection, "connection is null");
        this.client = client;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (client) {
            connection.connect();
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        connection.from(client).accept((ByteBuf) msg);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event == ChannelInputShutdownEvent.INSTANCE) {
            connection.from(client).sourceEnded();
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        connection.to(client).resume();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        connection.from(client).sourceEnded();
        connection.to(client).abort();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("{}: closing after an error", ctx.channel(), cause);
        ctx.close();
    }
}
