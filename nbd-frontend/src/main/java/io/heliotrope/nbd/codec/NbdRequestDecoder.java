package io.heliotrope.nbd.codec;

import io.heliotrope.nbd.protocol.NbdCommand;
import io.heliotrope.nbd.protocol.NbdRequest;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.CorruptedFrameException;

import java.util.List;

import static io.heliotrope.nbd.protocol.NbdConstants.MAX_PAYLOAD;
import static io.heliotrope.nbd.protocol.NbdConstants.REQUEST_HEADER_LENGTH;
import static io.heliotrope.nbd.protocol.NbdConstants.REQUEST_MAGIC;

/**
 * Decodes transmission-phase requests. A WRITE payload is passed on once all of it has
 * arrived: as a retained slice when it came with its header, else in a buffer of its
 * own. On a channel whose reads a {@link PayloadReceiveAllocator} allocates, the socket
 * reads the rest of the payload straight into that buffer; elsewhere each read is
 * copied into it once (the cumulation would copy it again on every read, and on every
 * growth). A WRITE longer than {@link io.heliotrope.nbd.protocol.NbdConstants#MAX_PAYLOAD}
 * is passed on without payload while its bytes are skipped as they come, so no length
 * from the wire is ever allocated before it is checked, and a payload buffer grows with
 * the bytes that came, past {@value #PRESIZE_BYTES} bytes. A bad magic number means the
 * stream cannot be framed again: the decoder fails and drops everything after it.
 */
public final class NbdRequestDecoder extends ByteToMessageDecoder {
    private enum State {
        HEADER,
        PAYLOAD,
        DISCARD,
        FAILED
    }

    private State state = State.HEADER;
    private int flags;
    private int type;
    private long handle;
    private long offset;
    private long length;
    private long discardRemaining;
    /** The payload of the WRITE being received, when it did not come with its header. */
    private ByteBuf payload;
    /** The room of {@link #payload} last lent to a socket read, until the read's bytes come back here. */
    private ByteBuf lent;

    static final int PRESIZE_BYTES = 1 << 20;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().config().getRecvByteBufAllocator() instanceof PayloadReceiveAllocator reads) {
            reads.lendTo(this);
        }
    }

    /**
     * The rest of the payload being collected, for the next socket read to fill (it grows
     * with the bytes that came, as {@link #decodePayload} grows it), or null when no
     * payload is being collected.
     */
    ByteBuf payloadRoom() {
        if (payload == null) {
            return null;
        }
        if (!payload.isWritable()) {
            payload.ensureWritable((int) Math.min(length - payload.writerIndex(), PRESIZE_BYTES));
        }
        lent = payload.retainedSlice(payload.writerIndex(), payload.writableBytes()).clear();
        return lent;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        switch (state) {
            case HEADER -> decodeHeader(ctx, in, out);
            case PAYLOAD -> decodePayload(ctx, in, out);
            case DISCARD -> {
                int skip = (int) Math.min(in.readableBytes(), discardRemaining);
                in.skipBytes(skip);
                discardRemaining -= skip;
                if (discardRemaining == 0) {
                    state = State.HEADER;
                }
            }
            case FAILED -> in.skipBytes(in.readableBytes());
        }
    }

    private void decodeHeader(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (in.readableBytes() < REQUEST_HEADER_LENGTH) {
            return;
        }
        int magic = in.readInt();
        if (magic != REQUEST_MAGIC) {
            state = State.FAILED;
            in.skipBytes(in.readableBytes());
            throw new CorruptedFrameException("bad request magic 0x" + Integer.toHexString(magic));
        }
        flags = in.readUnsignedShort();
        type = in.readUnsignedShort();
        handle = in.readLong();
        offset = in.readLong();
        length = in.readUnsignedInt();
        if (type != NbdCommand.WRITE.wireValue()) {
            out.add(new NbdRequest(flags, type, handle, offset, length, null));
        } else if (length > MAX_PAYLOAD) {
            out.add(new NbdRequest(flags, type, handle, offset, length, null));
            discardRemaining = length;
            state = State.DISCARD;
        } else {
            state = State.PAYLOAD;
            // A zero-length WRITE is complete now: no further bytes would call decode again.
            decodePayload(ctx, in, out);
        }
    }

    private void decodePayload(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (payload == null) {
            if (in.readableBytes() >= length) {
                out.add(new NbdRequest(flags, type, handle, offset, length, in.readRetainedSlice((int) length)));
                state = State.HEADER;
                return;
            }
            payload = ctx.alloc().directBuffer((int) Math.min(length, PRESIZE_BYTES), (int) length);
        }
        int received = Math.min(in.readableBytes(), payload.maxWritableBytes());
        if (in == lent) {
            // The socket read these bytes into the payload itself.
            in.skipBytes(received);
            payload.writerIndex(payload.writerIndex() + received);
        } else {
            payload.writeBytes(in, received);
        }
        lent = null;
        if (payload.readableBytes() == length) {
            out.add(new NbdRequest(flags, type, handle, offset, length, payload));
            payload = null;
            state = State.HEADER;
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        if (payload != null) {
            payload.release();
            payload = null;
        }
        lent = null;
    }
}
