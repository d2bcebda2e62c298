package io.heliotrope.nbd.client;

import io.heliotrope.nbd.Extent;
import io.heliotrope.nbd.protocol.NbdCommand;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.heliotrope.nbd.protocol.NbdConstants.REPLY_FLAG_DONE;
import static io.heliotrope.nbd.protocol.NbdConstants.REPLY_TYPE_BLOCK_STATUS;
import static io.heliotrope.nbd.protocol.NbdConstants.REQUEST_HEADER_LENGTH;
import static io.heliotrope.nbd.protocol.NbdConstants.REQUEST_MAGIC;
import static io.heliotrope.nbd.protocol.NbdConstants.SIMPLE_REPLY_MAGIC;
import static io.heliotrope.nbd.protocol.NbdConstants.STATE_HOLE;
import static io.heliotrope.nbd.protocol.NbdConstants.STATE_ZERO;
import static io.heliotrope.nbd.protocol.NbdConstants.STRUCTURED_REPLY_MAGIC;
import static io.heliotrope.nbd.protocol.NbdConstants.TRANSMISSION_CAN_MULTI_CONN;
import static io.heliotrope.nbd.protocol.NbdConstants.TRANSMISSION_READ_ONLY;

/**
 * A blocking NBD client for bulk copies: fixed newstyle, {@code NBD_OPT_GO}, requests
 * pipelined on one connection (as many in flight as the caller sends before it
 * {@link #receive receives}), answered in any order. Data goes between the socket and the
 * caller's buffers with no copy in between. One thread uses a client at a time; a copy
 * over several connections opens several clients, when the server advertises multi-conn.
 *
 * <p>Replies are simple, so a client reads and writes; one opened {@code withAllocation}
 * negotiates structured replies and {@code base:allocation} instead, and only asks for
 * {@link #blockStatus}. A failed request leaves the connection unusable: the caller
 * closes it. There are no timeouts: a server that stops answering holds the caller, as
 * it holds {@code nbdcopy}.
 */
public final class NbdClient implements AutoCloseable {
    private static final int SIMPLE_REPLY_LENGTH = 16;
    private static final int CHUNK_HEADER_LENGTH = 20;

    /** A request in flight, as {@link #receive} returns it once answered: {@code buffer} is what a READ filled or a WRITE sent. */
    public record Request(NbdCommand command, long offset, int length, ByteBuffer buffer) {}

    private final SocketChannel channel;
    private final String export;
    private final boolean structured;
    private final ByteBuffer header = ByteBuffer.allocateDirect(REQUEST_HEADER_LENGTH);
    private final ByteBuffer reply = ByteBuffer.allocateDirect(CHUNK_HEADER_LENGTH);
    private final Map<Long, Request> pending = new HashMap<>();
    /** What the BLOCK_STATUS in flight has been told so far. */
    private List<Extent> extents;
    private final long size;
    private final int transmissionFlags;
    private long nextHandle = 1;
    private boolean broken;

    private NbdClient(SocketChannel channel, String export, boolean structured, long size, int transmissionFlags) {
        this.channel = channel;
        this.export = export;
        this.structured = structured;
        this.size = size;
        this.transmissionFlags = transmissionFlags;
    }

    /** Connects and selects {@code export}, ready to read and write. */
    public static NbdClient connect(InetSocketAddress address, String export) throws IOException {
        return open(address, export, false);
    }

    /** Connects and selects {@code export} with {@code base:allocation}, for {@link #blockStatus} only. */
    public static NbdClient withAllocation(InetSocketAddress address, String export) throws IOException {
        return open(address, export, true);
    }

    private static NbdClient open(InetSocketAddress address, String export, boolean allocation) throws IOException {
        SocketChannel channel = SocketChannel.open();
        try {
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.connect(address);
            NbdHandshake.Export selected = new NbdHandshake(channel).select(export, allocation);
            return new NbdClient(channel, export, allocation, selected.size(), selected.transmissionFlags());
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    public long size() {
        return size;
    }

    public boolean isReadOnly() {
        return (transmissionFlags & TRANSMISSION_READ_ONLY) != 0;
    }

    /** Whether the server lets several connections share the export, a FLUSH on one covering writes done on all. */
    public boolean canMultiConn() {
        return (transmissionFlags & TRANSMISSION_CAN_MULTI_CONN) != 0;
    }

    public int inFlight() {
        return pending.size();
    }

    /** Sends a WRITE of {@code data}'s remaining bytes at {@code offset}; the buffer must stay untouched until its reply. */
    public void write(long offset, ByteBuffer data) throws IOException {
        int length = data.remaining();
        send(new Request(NbdCommand.WRITE, offset, length, data));
    }

    /** Sends a READ of {@code into}'s remaining bytes at {@code offset}; they are filled when its reply is received. */
    public void read(long offset, ByteBuffer into) throws IOException {
        checkSimple("READ");
        send(new Request(NbdCommand.READ, offset, into.remaining(), into));
    }

    /** Sends a FLUSH: once it is answered, every write answered before it is durable. */
    public void flush() throws IOException {
        send(new Request(NbdCommand.FLUSH, 0, 0, null));
    }

    /**
     * The allocation of at least the start of {@code [offset, offset + length)}, as the
     * server describes it; the caller asks again from where the extents end. Nothing else
     * may be in flight.
     */
    public List<Extent> blockStatus(long offset, int length) throws IOException {
        if (!structured) {
            throw new IllegalStateException("BLOCK_STATUS needs a client opened withAllocation");
        }
        if (!pending.isEmpty()) {
            throw new IllegalStateException("BLOCK_STATUS with requests in flight");
        }
        extents = new ArrayList<>();
        send(new Request(NbdCommand.BLOCK_STATUS, offset, length, null));
        receive();
        return extents;
    }

    /** Receives the reply to one request in flight and returns that request; throws {@link NbdClientException} if the server failed it. */
    public Request receive() throws IOException {
        if (pending.isEmpty()) {
            throw new IllegalStateException("no request in flight");
        }
        try {
            reply.clear().limit(SIMPLE_REPLY_LENGTH);
            readFully(reply);
            int magic = reply.getInt(0);
            long handle = reply.getLong(8);
            Request request = pending.get(handle);
            if (request == null) {
                throw new IOException("the server answered request " + handle + ", which is not in flight");
            }
            if (magic == SIMPLE_REPLY_MAGIC) {
                simpleReply(request, reply.getInt(4));
            } else if (magic == STRUCTURED_REPLY_MAGIC && structured) {
                structuredReply(request, handle);
            } else {
                throw new IOException("bad reply magic 0x" + Integer.toHexString(magic));
            }
            pending.remove(handle);
            return request;
        } catch (IOException | RuntimeException e) {
            broken = true;
            throw e;
        }
    }

    /** Receives until nothing is in flight. */
    public void drain() throws IOException {
        while (!pending.isEmpty()) {
            receive();
        }
    }

    private void simpleReply(Request request, int errno) throws IOException {
        if (errno != 0) {
            throw failed(request, errno, "");
        }
        if (request.command == NbdCommand.READ) {
            readFully(request.buffer);
        }
    }

    /** The chunks of one reply, until the one flagged done. */
    private void structuredReply(Request request, long handle) throws IOException {
        while (true) {
            reply.limit(CHUNK_HEADER_LENGTH);
            readFully(reply);
            int flags = reply.getShort(4) & 0xffff;
            int type = reply.getShort(6) & 0xffff;
            ByteBuffer payload = ByteBuffer.allocate(reply.getInt(16));
            readFully(payload);
            payload.flip();
            if ((type & 0x8000) != 0) {
                int errno = payload.getInt();
                byte[] message = new byte[payload.getShort() & 0xffff];
                payload.get(message);
                throw failed(request, errno, new String(message, StandardCharsets.UTF_8));
            }
            if (type == REPLY_TYPE_BLOCK_STATUS && request.command == NbdCommand.BLOCK_STATUS) {
                payload.getInt();
                while (payload.remaining() >= 8) {
                    long length = payload.getInt() & 0xffffffffL;
                    int state = payload.getInt();
                    extents.add(new Extent(length, (state & STATE_HOLE) != 0, (state & STATE_ZERO) != 0));
                }
            }
            if ((flags & REPLY_FLAG_DONE) != 0) {
                return;
            }
            reply.clear().limit(SIMPLE_REPLY_LENGTH);
            readFully(reply);
            if (reply.getInt(0) != STRUCTURED_REPLY_MAGIC || reply.getLong(8) != handle) {
                throw new IOException("a reply chunk of request " + handle + " came in between another's");
            }
        }
    }

    private NbdClientException failed(Request request, int errno, String message) {
        String where = request.command == NbdCommand.FLUSH ? "" : " at " + request.offset + " (" + request.length + " bytes)";
        return NbdClientException.request(errno, request.command + where + " on export '" + export + "' failed with errno " + errno
                + (message.isEmpty() ? "" : ": " + message));
    }

    private void send(Request request) throws IOException {
        if (broken) {
            throw new IllegalStateException("the connection failed; close it");
        }
        long handle = nextHandle++;
        header.clear();
        header.putInt(REQUEST_MAGIC).putShort((short) 0).putShort((short) request.command.wireValue())
                .putLong(handle).putLong(request.offset).putInt(request.length).flip();
        pending.put(handle, request);
        try {
            if (request.command == NbdCommand.WRITE) {
                ByteBuffer payload = request.buffer;
                ByteBuffer[] both = {header, payload};
                while (payload.hasRemaining()) {
                    channel.write(both);
                }
            } else {
                writeFully(header);
            }
        } catch (IOException | RuntimeException e) {
            broken = true;
            throw e;
        }
    }

    private void checkSimple(String command) {
        if (structured) {
            throw new IllegalStateException(command + " on a client opened withAllocation");
        }
    }

    private void writeFully(ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    private void readFully(ByteBuffer buffer) throws IOException {
        readFully(channel, buffer);
    }

    static void readFully(SocketChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                throw new EOFException("the NBD server closed the connection");
            }
        }
    }

    /** Closes the connection at once, from any thread: a call blocked on it fails. */
    public void abort() throws IOException {
        channel.close();
    }

    /** Sends NBD_CMD_DISC when the connection is sound and idle, and closes it. */
    @Override
    public void close() throws IOException {
        try (channel) {
            if (!broken && pending.isEmpty() && channel.isOpen()) {
                header.clear();
                header.putInt(REQUEST_MAGIC).putShort((short) 0).putShort((short) NbdCommand.DISC.wireValue())
                        .putLong(0).putLong(0).putInt(0).flip();
                writeFully(header);
            }
        }
    }
}
