package io.heliotrope.nbd;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static io.heliotrope.nbd.protocol.NbdConstants.FLAG_FIXED_NEWSTYLE;
import static io.heliotrope.nbd.protocol.NbdConstants.FLAG_NO_ZEROES;
import static io.heliotrope.nbd.protocol.NbdConstants.IHAVEOPT;
import static io.heliotrope.nbd.protocol.NbdConstants.NBDMAGIC;
import static io.heliotrope.nbd.protocol.NbdConstants.OPTION_REPLY_MAGIC;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_GO;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ACK;
import static io.heliotrope.nbd.protocol.NbdConstants.REQUEST_MAGIC;
import static io.heliotrope.nbd.protocol.NbdConstants.SIMPLE_REPLY_MAGIC;

/** A blocking, simple-reply NBD client over a socket: enough to prove a server still serves. */
public final class RawNbdClient implements AutoCloseable {
    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;

    public RawNbdClient(InetSocketAddress address, String export) throws IOException {
        socket = new Socket();
        socket.connect(address, 5_000);
        socket.setSoTimeout(10_000);
        in = new DataInputStream(socket.getInputStream());
        out = new DataOutputStream(socket.getOutputStream());
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
            in.skipNBytes(in.readInt());
            if (type == REP_ACK) {
                return;
            }
            expect(type > 0, "option reply type " + Integer.toHexString(type));
        }
    }

    public void write(long handle, long offset, byte[] data) throws IOException {
        header(1, handle, offset, data.length);
        out.write(data);
        out.flush();
        expectOk(handle);
    }

    public byte[] read(long handle, long offset, int length) throws IOException {
        header(0, handle, offset, length);
        out.flush();
        expectOk(handle);
        return in.readNBytes(length);
    }

    private void header(int type, long handle, long offset, int length) throws IOException {
        out.writeInt(REQUEST_MAGIC);
        out.writeShort(0);
        out.writeShort(type);
        out.writeLong(handle);
        out.writeLong(offset);
        out.writeInt(length);
    }

    private void expectOk(long handle) throws IOException {
        expect(in.readInt() == SIMPLE_REPLY_MAGIC, "simple reply magic");
        int error = in.readInt();
        expect(in.readLong() == handle, "reply handle");
        expect(error == 0, "error " + error);
    }

    private static void expect(boolean condition, String what) throws IOException {
        if (!condition) {
            throw new IOException("unexpected " + what);
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
