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

    private static final int TYPE_OFFSET = 12;
    private static final int LENGTH_OFFSET = 16;
    private static final int HEADER = 20;

    private OptionReplyEncoder() {}

    @Override
    protected void encode(ChannelHandlerContext ctx, OptionReply reply, List<Object> out) {
        ByteBuf buf = ctx.alloc().buffer();
        buf.writeLong(OPTION_REPLY_MAGIC);
        buf.writeInt(reply.option());
        // The type and the length of the data, set once the data is written.
        buf.writeZero(HEADER - TYPE_OFFSET);
        int type;
        if (reply instanceof OptionReply.Ack) {
            type = REP_ACK;
        } else if (reply instanceof OptionReply.Server server) {
            type = REP_SERVER;
            buf.writeInt(ByteBufUtil.utf8Bytes(server.exportName()));
            buf.writeCharSequence(server.exportName(), StandardCharsets.UTF_8);
            // The rest of the data, after the name, is the description.
            buf.writeCharSequence(server.description(), StandardCharsets.UTF_8);
        } else if (reply instanceof OptionReply.ExportInfo export) {
            type = REP_INFO;
            buf.writeShort(INFO_EXPORT).writeLong(export.size()).writeShort(export.transmissionFlags());
        } else if (reply instanceof OptionReply.NameInfo name) {
            type = REP_INFO;
            buf.writeShort(INFO_NAME);
            buf.writeCharSequence(name.exportName(), StandardCharsets.UTF_8);
        } else if (reply instanceof OptionReply.BlockSizeInfo blockSize) {
            type = REP_INFO;
            buf.writeShort(INFO_BLOCK_SIZE).writeInt(blockSize.minimum()).writeInt(blockSize.preferred()).writeInt(blockSize.maximum());
        } else if (reply instanceof OptionReply.MetaContext context) {
            type = REP_META_CONTEXT;
            buf.writeInt(context.contextId());
            buf.writeCharSequence(context.name(), StandardCharsets.UTF_8);
        } else if (reply instanceof OptionReply.Error error) {
            type = error.type();
            buf.writeCharSequence(error.message(), StandardCharsets.UTF_8);
        } else {
            buf.release();
            throw new IllegalArgumentException("unknown option reply " + reply);
        }
        buf.setInt(TYPE_OFFSET, type);
        buf.setInt(LENGTH_OFFSET, buf.readableBytes() - HEADER);
        out.add(buf);
    }
}
