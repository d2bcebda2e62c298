package io.heliotrope.wan;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;

final class TestingClient {
    static final int TIMEOUT_MILLIS = 20_000;

    private TestingClient() {}

    static Socket connect(InetSocketAddress address) throws IOException {
        Socket socket = new Socket(address.getAddress(), address.getPort());
        socket.setSoTimeout(TIMEOUT_MILLIS);
        return socket;
    }

    /**
     * Sends {@code data}, shuts the output and returns everything received until the peer shuts
     * its own; writes on another thread, so that an echo cannot stall on full buffers.
     */
    static byte[] exchange(InetSocketAddress address, byte[] data) throws IOException {
        try (Socket socket = connect(address)) {
            CompletableFuture<Void> written = new CompletableFuture<>();
            Thread writer = new Thread(() -> {
                try {
                    socket.getOutputStream().write(data);
                    socket.shutdownOutput();
                    written.complete(null);
                } catch (IOException e) {
                    written.completeExceptionally(new UncheckedIOException(e));
                }
            }, "test-writer-" + socket.getLocalPort());
            writer.start();
            byte[] received = socket.getInputStream().readAllBytes();
            written.join();
            return received;
        }
    }
}
