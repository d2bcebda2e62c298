package io.heliotrope.it;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A minimal NBD client written from the protocol document, for requests that real
 * clients refuse to send (they check ranges themselves): fixed newstyle,
 * {@code NBD_OPT_EXPORT_NAME}, simple replies, one request in flight.
 */
final class RawNbdConnection implements AutoCloseable {
    private static final long NBDMAGIC = 0x4e42444d41474943L;
    private static final long IHAVEOPT = 0x49484156454F5054L;
    private static final int FLAG_FIXED_NEWSTYLE = 1;
    private static final int FLAG_NO_ZEROES = 2;
    private static final int OPT_EXPORT_NAME = 1;
    private static final int REQUEST_MAGIC = 0x25609513;
    private static final int SIMPLE_REPLY_MAGIC = 0x67446698;
    private static final short CMD_READ = 0;
    private static final short CMD_WRITE = 1;
    private static final short CMD_DISC = 2;

    /** A simple reply: {@code error} is an errno (0 for success), {@code data} what a read returned. */
    record Reply(int error, byte[] data) {}

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private final long size;
    private long nextHandle = 1;

    private RawNbdConnection(Socket socket, String export) throws IOException {
        this.socket = socket;
        socket.setSoTimeout(30_000);
        in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
        assertThat(in.readLong()).as("NBDMAGIC").isEqualTo(NBDMAGIC);
        assertThat(in.readLong()).as("IHAVEOPT").isEqualTo(IHAVEOPT);
        int serverFlags = in.readUnsignedShort();
        assertThat(serverFlags & FLAG_FIXED_NEWSTYLE).as("fixed newstyle").isNotZero();
        out.writeInt(serverFlags & (FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES));
        byte[] name = export.getBytes(StandardCharsets.UTF_8);
        out.writeLong(IHAVEOPT);
        out.writeInt(OPT_EXPORT_NAME);
        out.writeInt(name.length);
        out.write(name);
        out.flush();
        size = in.readLong();
        in.readUnsignedShort();
        if ((serverFlags & FLAG_NO_ZEROES) == 0) {
            in.readFully(new byte[124]);
        }
    }

    static RawNbdConnection open(int port, String export) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        try {
            return new RawNbdConnection(socket, export);
        } catch (IOException | RuntimeException | AssertionError e) {
            socket.close();
            throw e;
        }
    }

    long size() {
        return size;
    }

    Reply read(long offset, int length) throws IOException {
        long handle = send(CMD_READ, offset, length, null);
        int error = awaitReply(handle);
        byte[] data = new byte[error == 0 ? length : 0];
        in.readFully(data);
        return new Reply(error, data);
    }

    int write(long offset, byte[] data) throws IOException {
        return awaitReply(send(CMD_WRITE, offset, data.length, data));
    }

    @Override
    public void close() throws IOException {
        try {
            send(CMD_DISC, 0, 0, null);
        } finally {
            socket.close();
        }
    }

    private long send(short command, long offset, int length, byte[] payload) throws IOException {
        long handle = nextHandle++;
        out.writeInt(REQUEST_MAGIC);
        out.writeShort(0);
        out.writeShort(command);
        out.writeLong(handle);
        out.writeLong(offset);
        out.writeInt(length);
        if (payload != null) {
            out.write(payload);
        }
        out.flush();
        return handle;
    }

    private int awaitReply(long handle) throws IOException {
        assertThat(in.readInt()).as("simple reply magic").isEqualTo(SIMPLE_REPLY_MAGIC);
        int error = in.readInt();
        assertThat(in.readLong()).as("reply handle").isEqualTo(handle);
        return error;
    }
}
