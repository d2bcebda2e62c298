package io.heliotrope.nbd;

import io.heliotrope.nbd.codec.NbdHandshakeHandler;
import io.heliotrope.nbd.codec.NbdReplyEncoder;
import io.heliotrope.nbd.server.BaseAllocation;
import io.heliotrope.nbd.server.NbdMetrics;
import io.heliotrope.nbd.server.NbdTransmissionHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static io.heliotrope.nbd.protocol.NbdConstants.IHAVEOPT;
import static io.heliotrope.nbd.protocol.NbdConstants.REQUEST_MAGIC;

/**
 * A whole server pipeline on an {@link EmbeddedChannel}, driven byte by byte as a
 * client would: options and requests in, everything the server wrote out.
 */
public final class NbdConversation implements AutoCloseable {
    private final TrackingAllocator allocator;
    private final EmbeddedChannel channel;

    public NbdConversation(ExportCatalog catalog, TrackingAllocator allocator) {
        this(catalog, List.of(new BaseAllocation()), allocator);
    }

    public NbdConversation(ExportCatalog catalog, List<MetaContext> metaContexts, TrackingAllocator allocator) {
        this.allocator = allocator;
        NbdMetrics metrics = new NbdMetrics(new SimpleMeterRegistry());
        channel = new EmbeddedChannel();
        channel.config().setAllocator(allocator);
        channel.pipeline().addLast("replies", NbdReplyEncoder.INSTANCE);
        channel.pipeline().addLast("handshake", new NbdHandshakeHandler(catalog, metaContexts, session -> new NbdTransmissionHandler(session, metrics, catalog::translate)));
        channel.pipeline().fireChannelActive();
    }

    public EmbeddedChannel channel() {
        return channel;
    }

    /** Sends bytes as the client, in pieces of at most {@code piece} bytes, and runs what they trigger. */
    public void send(ByteBuf bytes, int piece) {
        try {
            while (bytes.isReadable() && channel.isOpen()) {
                int length = Math.min(piece, bytes.readableBytes());
                channel.writeInbound(allocator.buffer(length).writeBytes(bytes, length));
                channel.runPendingTasks();
            }
        } finally {
            bytes.release();
        }
    }

    public void send(ByteBuf bytes) {
        send(bytes, Integer.MAX_VALUE);
    }

    /** Everything the server wrote since the last call, as one buffer the caller releases. */
    public ByteBuf received() {
        channel.runPendingTasks();
        CompositeByteBuf all = allocator.compositeBuffer(Integer.MAX_VALUE);
        for (Object message; (message = channel.readOutbound()) != null; ) {
            all.addComponent(true, (ByteBuf) message);
        }
        return all;
    }

    public ByteBuf clientFlags(int flags) {
        return allocator.buffer(4).writeInt(flags);
    }

    public ByteBuf option(int option, ByteBuf data) {
        ByteBuf buf = allocator.buffer(16 + data.readableBytes());
        buf.writeLong(IHAVEOPT).writeInt(option).writeInt(data.readableBytes()).writeBytes(data);
        data.release();
        return buf;
    }

    /** The data of {@code NBD_OPT_GO} or {@code NBD_OPT_INFO} for an export, with no info requests. */
    public ByteBuf goData(String name) {
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        return allocator.buffer().writeInt(bytes.length).writeBytes(bytes).writeShort(0);
    }

    /** The data of {@code NBD_OPT_LIST_META_CONTEXT} or {@code NBD_OPT_SET_META_CONTEXT}. */
    public ByteBuf metaContextData(String export, String... queries) {
        ByteBuf data = allocator.buffer();
        byte[] name = export.getBytes(StandardCharsets.UTF_8);
        data.writeInt(name.length).writeBytes(name).writeInt(queries.length);
        for (String query : queries) {
            byte[] bytes = query.getBytes(StandardCharsets.UTF_8);
            data.writeInt(bytes.length).writeBytes(bytes);
        }
        return data;
    }

    public ByteBuf request(int flags, int type, long handle, long offset, long length, byte[] payload) {
        ByteBuf buf = allocator.buffer(28 + (payload == null ? 0 : payload.length));
        buf.writeInt(REQUEST_MAGIC).writeShort(flags).writeShort(type).writeLong(handle).writeLong(offset).writeInt((int) length);
        if (payload != null) {
            buf.writeBytes(payload);
        }
        return buf;
    }

    public ByteBuf empty() {
        return allocator.buffer(0);
    }

    @Override
    public void close() {
        channel.finishAndReleaseAll();
        channel.runPendingTasks();
    }
}
