package io.heliotrope.nbd.codec;

import io.heliotrope.nbd.protocol.OptionReply;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static io.heliotrope.nbd.protocol.NbdConstants.INFO_BLOCK_SIZE;
import static io.heliotrope.nbd.protocol.NbdConstants.INFO_EXPORT;
import static io.heliotrope.nbd.protocol.NbdConstants.INFO_NAME;
import static io.heliotrope.nbd.protocol.NbdConstants.OPTION_REPLY_MAGIC;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ACK;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_INFO;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_META_CONTEXT;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_SERVER;

/** Encodes the replies to handshake options, each as one buffer: header, then data. */
@Sharable
public final class OptionReplyEncoder extends MessageToMessageEncoder<OptionReply> {
    public static final OptionReplyEncoder INSTANCE = new OptionReplyEncoder();

    private static final int HEADER = 20;

    private OptionReplyEncoder() {}

    @Override
    protected void encode(ChannelHandlerContext ctx, OptionReply reply, List<Object> out) {
        ByteBuf buf;
        if (reply instanceof OptionReply.Ack) {
            buf = header(ctx, reply, REP_ACK, 0);
        } else if (reply instanceof OptionReply.Server server) {
            int length = ByteBufUtil.utf8Bytes(server.exportName());
            buf = header(ctx, reply, REP_SERVER, 4 + length);
            buf.writeInt(length);
            buf.writeCharSequence(server.exportName(), StandardCharsets.UTF_8);
        } else if (reply instanceof OptionReply.ExportInfo export) {
            buf = header(ctx, reply, REP_INFO, 12);
            buf.writeShort(INFO_EXPORT);
            buf.writeLong(export.size());
            buf.writeShort(export.transmissionFlags());
        } else if (reply instanceof OptionReply.NameInfo name) {
            buf = header(ctx, reply, REP_INFO, 2 + ByteBufUtil.utf8Bytes(name.exportName()));
            buf.writeShort(INFO_NAME);
            buf.writeCharSequence(name.exportName(), StandardCharsets.UTF_8);
        } else if (reply instanceof OptionReply.BlockSizeInfo blockSize) {
            buf = header(ctx, reply, REP_INFO, 14);
            buf.writeShort(INFO_BLOCK_SIZE);
            buf.writeInt(blockSize.minimum());
            buf.writeInt(blockSize.preferred());
            buf.writeInt(blockSize.maximum());
        } else if (reply instanceof OptionReply.MetaContext context) {
            buf = header(ctx, reply, REP_META_CONTEXT, 4 + ByteBufUtil.utf8Bytes(context.name()));
            buf.writeInt(context.contextId());
            buf.writeCharSequence(context.name(), StandardCharsets.UTF_8);
        } else if (reply instanceof OptionReply.Error error) {
            buf = header(ctx, reply, error.type(), ByteBufUtil.utf8Bytes(error.message()));
            buf.writeCharSequence(error.message(), StandardCharsets.UTF_8);
        } else {
            throw new IllegalArgumentException("unknown option reply " + reply);
        }
        out.add(buf);
    }

    private static ByteBuf header(ChannelHandlerContext ctx, OptionReply reply, int type, int length) {
        ByteBuf buf = ctx.alloc().buffer(HEADER + length);
        buf.writeLong(OPTION_REPLY_MAGIC);
        buf.writeInt(reply.option());
        buf.writeInt(type);
        buf.writeInt(length);
        return buf;
    }
}
