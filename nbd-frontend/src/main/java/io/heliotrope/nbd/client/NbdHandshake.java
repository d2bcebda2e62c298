package io.heliotrope.nbd.client;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

import static io.heliotrope.nbd.protocol.NbdConstants.FLAG_FIXED_NEWSTYLE;
import static io.heliotrope.nbd.protocol.NbdConstants.FLAG_NO_ZEROES;
import static io.heliotrope.nbd.protocol.NbdConstants.IHAVEOPT;
import static io.heliotrope.nbd.protocol.NbdConstants.INFO_EXPORT;
import static io.heliotrope.nbd.protocol.NbdConstants.NBDMAGIC;
import static io.heliotrope.nbd.protocol.NbdConstants.OPTION_REPLY_MAGIC;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_GO;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_SET_META_CONTEXT;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_STRUCTURED_REPLY;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ACK;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_INFO;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_META_CONTEXT;

/**
 * The client's side of the fixed newstyle handshake: {@code NBD_OPT_GO} for one export,
 * after structured replies and {@code base:allocation} when asked. An error reply to an
 * option becomes an {@link NbdClientException} with the server's message.
 */
final class NbdHandshake {
    private static final String ALLOCATION = "base:allocation";
    /** The longest option reply read; ours are a few hundred bytes. */
    private static final int MAX_REPLY = 1 << 20;

    /** What {@code NBD_INFO_EXPORT} said of the export selected. */
    record Export(long size, int transmissionFlags) {}

    private record OptionReply(int type, ByteBuffer data) {}

    private final SocketChannel channel;

    NbdHandshake(SocketChannel channel) {
        this.channel = channel;
    }

    Export select(String export, boolean allocation) throws IOException {
        ByteBuffer greeting = read(18);
        if (greeting.getLong() != NBDMAGIC || greeting.getLong() != IHAVEOPT) {
            throw new IOException("not an NBD server (no fixed newstyle greeting)");
        }
        int serverFlags = greeting.getShort() & 0xffff;
        if ((serverFlags & FLAG_FIXED_NEWSTYLE) == 0) {
            throw new IOException("the NBD server does not speak fixed newstyle");
        }
        write(ByteBuffer.allocate(4).putInt(FLAG_FIXED_NEWSTYLE | (serverFlags & FLAG_NO_ZEROES)).flip());
        byte[] name = export.getBytes(StandardCharsets.UTF_8);
        if (allocation) {
            option(OPT_STRUCTURED_REPLY, ByteBuffer.allocate(0));
            if (reply(OPT_STRUCTURED_REPLY).type != REP_ACK) {
                throw new IOException("the NBD server does not offer structured replies");
            }
            byte[] query = ALLOCATION.getBytes(StandardCharsets.UTF_8);
            option(OPT_SET_META_CONTEXT, ByteBuffer.allocate(12 + name.length + query.length)
                    .putInt(name.length).put(name).putInt(1).putInt(query.length).put(query).flip());
            expectMetaContext();
        }
        option(OPT_GO, ByteBuffer.allocate(6 + name.length).putInt(name.length).put(name).putShort((short) 0).flip());
        Export selected = null;
        for (OptionReply reply; (reply = reply(OPT_GO)).type != REP_ACK; ) {
            if (reply.type == REP_INFO && reply.data.remaining() >= 12 && reply.data.getShort() == INFO_EXPORT) {
                selected = new Export(reply.data.getLong(), reply.data.getShort() & 0xffff);
            }
        }
        if (selected == null) {
            throw new IOException("the NBD server selected export '" + export + "' without saying its size");
        }
        return selected;
    }

    private void expectMetaContext() throws IOException {
        boolean selected = false;
        for (OptionReply reply; (reply = reply(OPT_SET_META_CONTEXT)).type != REP_ACK; ) {
            selected |= reply.type == REP_META_CONTEXT;
        }
        if (!selected) {
            throw new IOException("the NBD server does not offer " + ALLOCATION);
        }
    }

    /** The next reply to {@code option}. */
    private OptionReply reply(int option) throws IOException {
        ByteBuffer head = read(20);
        if (head.getLong() != OPTION_REPLY_MAGIC || head.getInt() != option) {
            throw new IOException("bad reply to NBD option " + option);
        }
        int type = head.getInt();
        int length = head.getInt();
        if (length < 0 || length > MAX_REPLY) {
            throw new IOException("NBD option reply of " + (length & 0xffffffffL) + " bytes");
        }
        ByteBuffer data = read(length);
        if (type < 0) {
            throw NbdClientException.option(type, StandardCharsets.UTF_8.decode(data).toString());
        }
        return new OptionReply(type, data);
    }

    private void option(int option, ByteBuffer data) throws IOException {
        write(ByteBuffer.allocate(16).putLong(IHAVEOPT).putInt(option).putInt(data.remaining()).flip());
        write(data);
    }

    private ByteBuffer read(int length) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(length);
        NbdClient.readFully(channel, buffer);
        return buffer.flip();
    }

    private void write(ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }
}
