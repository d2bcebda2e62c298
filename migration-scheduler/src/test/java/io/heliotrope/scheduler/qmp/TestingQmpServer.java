package io.heliotrope.scheduler.qmp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A fake QEMU monitor on a UNIX socket: greets the one client it accepts, answers each
 * command with what {@code answer} returns for it (a JSON line without the id, which it
 * adds; null to leave it unanswered), and sends the events a test pushes.
 */
public final class TestingQmpServer implements AutoCloseable {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    static final String GREETING = "{\"QMP\": {\"version\": {\"qemu\": {\"micro\": 22, \"minor\": 2, \"major\": 7}, \"package\": \"\"}, \"capabilities\": [\"oob\"]}}";

    private final Path socket;
    private final ServerSocketChannel server;
    private final Function<JsonNode, String> answer;
    private final BlockingQueue<JsonNode> received = new LinkedBlockingQueue<>();
    private final CompletableFuture<SocketChannel> client = new CompletableFuture<>();

    public TestingQmpServer(Path socket, Function<JsonNode, String> answer) throws IOException {
        this.socket = socket;
        this.answer = answer;
        this.server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        Thread thread = new Thread(this::serve, "testing-qmp-server");
        thread.setDaemon(true);
        thread.start();
    }

    /** Answers every command with an empty {@code return}. */
    public static String empty(JsonNode command) {
        return "{\"return\": {}}";
    }

    public Path socket() {
        return socket;
    }

    /** The next command the client sent (qmp_capabilities included). */
    public JsonNode nextCommand() throws InterruptedException {
        JsonNode command = received.poll(10, TimeUnit.SECONDS);
        if (command == null) {
            throw new AssertionError("no command within 10 s");
        }
        return command;
    }

    /** Sends raw bytes to the connected client, as they are. */
    public void send(String text) throws Exception {
        ByteBuffer bytes = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
        SocketChannel channel = client.get(10, TimeUnit.SECONDS);
        synchronized (this) {
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
        }
    }

    public void event(String name, String data, long seconds, long micros) throws Exception {
        send("{\"timestamp\": {\"seconds\": " + seconds + ", \"microseconds\": " + micros + "}, \"event\": \"" + name + "\", \"data\": " + data + "}\r\n");
    }

    /** Ends the connection, as a QEMU that exits. */
    public void disconnect() throws Exception {
        client.get(10, TimeUnit.SECONDS).close();
    }

    @Override
    public void close() throws IOException {
        server.close();
        client.thenAccept(channel -> {
            try {
                channel.close();
            } catch (IOException ignored) {
                // closing is all we want
            }
        });
    }

    private void serve() {
        try (SocketChannel channel = server.accept()) {
            client.complete(channel);
            send(GREETING + "\r\n");
            StringBuilder input = new StringBuilder();
            ByteBuffer buffer = ByteBuffer.allocate(4096);
            while (channel.read(buffer) >= 0) {
                buffer.flip();
                input.append(StandardCharsets.UTF_8.decode(buffer));
                for (int end = input.indexOf("\n"); end >= 0; end = input.indexOf("\n")) {
                    JsonNode command = MAPPER.readTree(input.substring(0, end));
                    input.delete(0, end + 1);
                    received.add(command);
                    String reply = answer.apply(command);
                    if (reply != null) {
                        send(reply.substring(0, reply.length() - 1) + ", \"id\": " + command.get("id") + "}\r\n");
                    }
                }
                buffer.clear();
            }
        } catch (Exception e) {
            client.completeExceptionally(e);
        }
    }
}
