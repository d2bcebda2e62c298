package io.heliotrope.nbd;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static io.heliotrope.nbd.protocol.NbdConstants.FLAG_FIXED_NEWSTYLE;
import static io.heliotrope.nbd.protocol.NbdConstants.FLAG_NO_ZEROES;
import static io.heliotrope.nbd.protocol.NbdConstants.IHAVEOPT;
import static io.heliotrope.nbd.protocol.NbdConstants.INFO_EXPORT;
import static io.heliotrope.nbd.protocol.NbdConstants.NBDMAGIC;
import static io.heliotrope.nbd.protocol.NbdConstants.OPTION_REPLY_MAGIC;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_GO;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ACK;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_INFO;
import static io.heliotrope.nbd.protocol.NbdConstants.REQUEST_MAGIC;
import static io.heliotrope.nbd.protocol.NbdConstants.SIMPLE_REPLY_MAGIC;

/**
 * A blocking NBD client with simple replies and one request in flight, for what real
 * clients refuse to send (out-of-range requests) and to prove a server still serves.
 */
public final class RawNbdClient implements AutoCloseable {
    /** A reply: {@code error} is the errno (0 for success), {@code data} what a read returned. */
    public record Reply(int error, byte[] data) {}

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private long size = -1;
    private long nextHandle = 1;

    public RawNbdClient(InetSocketAddress address, String export) throws IOException {
        socket = new Socket();
        try {
            socket.connect(address, 5_000);
            socket.setSoTimeout(30_000);
            in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
            go(export);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    private void go(String export) throws IOException {
        expect(in.readLong() == NBDMAGIC && in.readLong() == IHAVEOPT, "greeting");
        in.readShort();
        out.writeInt(FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES);
        byte[] name = export.getBytes(StandardCharsets.UTF_8);
        out.writeLong(IHAVEOPT);
        out.writeInt(OPT_GO);
        out.writeInt(4 + name.length + 2);
        out.writeInt(name.length);
        out.write(name);
        out.writeShort(0);
        out.flush();
        while (true) {
            expect(in.readLong() == OPTION_REPLY_MAGIC, "option reply magic");
            in.readInt();
            int type = in.readInt();
            byte[] data = in.readNBytes(in.readInt());
            if (type == REP_ACK) {
                expect(size >= 0, "export size before NBD_REP_ACK");
                return;
            }
            expect(type > 0, "option reply type 0x" + Integer.toHexString(type) + ": " + new String(data, StandardCharsets.UTF_8));
            java.nio.ByteBuffer info = java.nio.ByteBuffer.wrap(data);
            if (type == REP_INFO && info.getShort() == INFO_EXPORT) {
                size = info.getLong();
            }
        }
    }

    public long size() {
        return size;
    }

    public Reply read(long offset, int length) throws IOException {
        int error = roundTrip(0, offset, length, null);
        return new Reply(error, error == 0 ? in.readNBytes(length) : new byte[0]);
    }

    public int write(long offset, byte[] data) throws IOException {
        return roundTrip(1, offset, data.length, data);
    }

    private int roundTrip(int type, long offset, int length, byte[] payload) throws IOException {
        long handle = nextHandle++;
        out.writeInt(REQUEST_MAGIC);
        out.writeShort(0);
        out.writeShort(type);
        out.writeLong(handle);
        out.writeLong(offset);
        out.writeInt(length);
        if (payload != null) {
            out.write(payload);
        }
        out.flush();
        expect(in.readInt() == SIMPLE_REPLY_MAGIC, "simple reply magic");
        int error = in.readInt();
        expect(in.readLong() == handle, "reply handle");
        return error;
    }

    private static void expect(boolean condition, String what) throws IOException {
        if (!condition) {
            throw new IOException("unexpected " + what);
        }
    }

    /** Sends NBD_CMD_DISC and closes the socket. */
    @Override
    public void close() throws IOException {
        try (socket) {
            out.writeInt(REQUEST_MAGIC);
            out.writeShort(0);
            out.writeShort(2);
            out.writeLong(0);
            out.writeLong(0);
            out.writeInt(0);
            out.flush();
        }
    }
}
