package io.heliotrope.nbd.codec;

import io.heliotrope.nbd.BlockDescriptor;
import io.heliotrope.nbd.protocol.NbdReply;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static io.heliotrope.nbd.protocol.NbdConstants.REPLY_FLAG_DONE;
import static io.heliotrope.nbd.protocol.NbdConstants.REPLY_TYPE_BLOCK_STATUS;
import static io.heliotrope.nbd.protocol.NbdConstants.REPLY_TYPE_ERROR;
import static io.heliotrope.nbd.protocol.NbdConstants.REPLY_TYPE_OFFSET_DATA;
import static io.heliotrope.nbd.protocol.NbdConstants.SIMPLE_REPLY_MAGIC;
import static io.heliotrope.nbd.protocol.NbdConstants.STRUCTURED_REPLY_MAGIC;

/** Encodes replies; read data is passed on as it is, after its header, never copied. */
@Sharable
public final class NbdReplyEncoder extends MessageToMessageEncoder<NbdReply> {
    public static final NbdReplyEncoder INSTANCE = new NbdReplyEncoder();

    private static final int SIMPLE_HEADER = 16;
    private static final int STRUCTURED_HEADER = 20;

    private NbdReplyEncoder() {}

    @Override
    protected void encode(ChannelHandlerContext ctx, NbdReply reply, List<Object> out) {
        if (reply instanceof NbdReply.Simple simple) {
            out.add(simpleHeader(ctx, simple.handle(), simple.error().wireValue()));
        } else if (reply instanceof NbdReply.Read read) {
            ByteBuf header;
            if (read.structured()) {
                header = structuredHeader(ctx, REPLY_FLAG_DONE, REPLY_TYPE_OFFSET_DATA, read.handle(), 8 + read.data().readableBytes(), 8);
                header.writeLong(read.offset());
            } else {
                header = simpleHeader(ctx, read.handle(), 0);
            }
            out.add(header);
            out.add(read.data().retain());
        } else if (reply instanceof NbdReply.StructuredError error) {
            byte[] message = error.message().getBytes(StandardCharsets.UTF_8);
            ByteBuf buf = structuredHeader(ctx, REPLY_FLAG_DONE, REPLY_TYPE_ERROR, error.handle(), 6 + message.length, 6 + message.length);
            buf.writeInt(error.error().wireValue());
            buf.writeShort(message.length);
            buf.writeBytes(message);
            out.add(buf);
        } else if (reply instanceof NbdReply.BlockStatus status) {
            List<NbdReply.ContextStatus> contexts = status.contexts();
            for (int i = 0; i < contexts.size(); i++) {
                NbdReply.ContextStatus context = contexts.get(i);
                int payload = 4 + 8 * context.descriptors().size();
                int flags = i == contexts.size() - 1 ? REPLY_FLAG_DONE : 0;
                ByteBuf buf = structuredHeader(ctx, flags, REPLY_TYPE_BLOCK_STATUS, status.handle(), payload, payload);
                buf.writeInt(context.contextId());
                for (BlockDescriptor descriptor : context.descriptors()) {
                    buf.writeInt((int) descriptor.length());
                    buf.writeInt(descriptor.flags());
                }
                out.add(buf);
            }
        } else {
            throw new IllegalArgumentException("unknown reply " + reply);
        }
    }

    private static ByteBuf simpleHeader(ChannelHandlerContext ctx, long handle, int error) {
        ByteBuf buf = ctx.alloc().ioBuffer(SIMPLE_HEADER);
        buf.writeInt(SIMPLE_REPLY_MAGIC);
        buf.writeInt(error);
        buf.writeLong(handle);
        return buf;
    }

    private static ByteBuf structuredHeader(ChannelHandlerContext ctx, int flags, int type, long handle, int length, int extra) {
        ByteBuf buf = ctx.alloc().ioBuffer(STRUCTURED_HEADER + extra);
        buf.writeInt(STRUCTURED_REPLY_MAGIC);
        buf.writeShort(flags);
        buf.writeShort(type);
        buf.writeLong(handle);
        buf.writeInt(length);
        return buf;
    }
}
