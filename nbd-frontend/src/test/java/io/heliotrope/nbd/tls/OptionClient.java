package io.heliotrope.nbd.tls;

import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContextBuilder;

import javax.net.ssl.SSLSocket;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.heliotrope.nbd.protocol.NbdConstants.FLAG_FIXED_NEWSTYLE;
import static io.heliotrope.nbd.protocol.NbdConstants.FLAG_NO_ZEROES;
import static io.heliotrope.nbd.protocol.NbdConstants.IHAVEOPT;
import static io.heliotrope.nbd.protocol.NbdConstants.NBDMAGIC;
import static io.heliotrope.nbd.protocol.NbdConstants.OPTION_REPLY_MAGIC;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ACK;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_INFO;
import static io.heliotrope.nbd.protocol.NbdConstants.REQUEST_MAGIC;
import static io.heliotrope.nbd.protocol.NbdConstants.SIMPLE_REPLY_MAGIC;
import static io.heliotrope.nbd.protocol.NbdConstants.STRUCTURED_REPLY_MAGIC;

/**
 * A blocking client that haggles options one by one, turns its socket into TLS when told,
 * and sends single requests: what the TLS handshake tests need to see every reply.
 */
final class OptionClient implements AutoCloseable {
    record Reply(int option, int type, byte[] data) {
        String text() {
            return new String(data, StandardCharsets.UTF_8);
        }
    }

    private final Socket plain;
    private Socket socket;
    private DataInputStream in;
    private DataOutputStream out;

    OptionClient(InetSocketAddress address) throws IOException {
        plain = new Socket();
        plain.connect(address, 5_000);
        plain.setSoTimeout(10_000);
        streams(plain);
        if (in.readLong() != NBDMAGIC || in.readLong() != IHAVEOPT) {
            throw new IOException("not an NBD server");
        }
        in.readShort();
        out.writeInt(FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES);
        out.flush();
    }

    /** Sends an option and reads its replies up to the final one (an ACK or an error). */
    List<Reply> option(int option, byte[] data) throws IOException {
        send(option, data);
        List<Reply> replies = new ArrayList<>();
        while (true) {
            if (in.readLong() != OPTION_REPLY_MAGIC) {
                throw new IOException("bad option reply magic");
            }
            Reply reply = new Reply(in.readInt(), in.readInt(), in.readNBytes(in.readInt()));
            replies.add(reply);
            if (reply.type() == REP_ACK || reply.type() < 0) {
                return replies;
            }
        }
    }

    void send(int option, byte[] data) throws IOException {
        out.writeLong(IHAVEOPT);
        out.writeInt(option);
        out.writeInt(data.length);
        out.write(data);
        out.flush();
    }

    /** Turns the connection into TLS with the certificate {@code name}-cert.pem of {@code dir}, trusting the CA of {@code caDir}. */
    String startTls(Path dir, String name, Path caDir) throws IOException {
        JdkSslContext context = (JdkSslContext) SslContextBuilder.forClient()
                .keyManager(dir.resolve(name + "-cert.pem").toFile(), dir.resolve(name + "-key.pem").toFile())
                .trustManager(caDir.resolve(TlsDirectory.CA_CERT).toFile())
                .build();
        SSLSocket tls = (SSLSocket) context.context().getSocketFactory().createSocket(plain, "127.0.0.1", plain.getPort(), true);
        tls.startHandshake();
        streams(tls);
        return tls.getSession().getProtocol();
    }

    /** The transmission flags an {@code NBD_REP_INFO} of type export among {@code replies} gives. */
    static int transmissionFlags(List<Reply> replies) {
        for (Reply reply : replies) {
            ByteBuffer info = ByteBuffer.wrap(reply.data());
            if (reply.type() == REP_INFO && info.getShort() == 0) {
                info.getLong();
                return info.getShort();
            }
        }
        throw new AssertionError("no NBD_INFO_EXPORT among " + replies);
    }

    /** Sends one request and returns the errno of its reply, simple or structured (an error chunk). */
    int request(int type, long offset, byte[] payload, int length) throws IOException {
        out.writeInt(REQUEST_MAGIC);
        out.writeShort(0);
        out.writeShort(type);
        out.writeLong(7);
        out.writeLong(offset);
        out.writeInt(length);
        if (payload != null) {
            out.write(payload);
        }
        out.flush();
        int magic = in.readInt();
        if (magic == SIMPLE_REPLY_MAGIC) {
            int error = in.readInt();
            in.readLong();
            return error;
        }
        if (magic != STRUCTURED_REPLY_MAGIC) {
            throw new IOException("bad reply magic");
        }
        in.readShort();
        int chunkType = in.readShort() & 0xffff;
        in.readLong();
        byte[] chunk = in.readNBytes(in.readInt());
        return chunkType >= 1 << 15 ? ByteBuffer.wrap(chunk).getInt() : 0;
    }

    /** Whether the server closed the connection: the next read finds its end. */
    boolean closedByServer() throws IOException {
        return in.read() < 0;
    }

    private void streams(Socket s) throws IOException {
        socket = s;
        in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
        out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
    }

    @Override
    public void close() throws IOException {
        socket.close();
        plain.close();
    }
}
