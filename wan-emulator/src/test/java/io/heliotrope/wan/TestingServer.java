package io.heliotrope.wan;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A blocking TCP server on 127.0.0.1 that serves each connection on its own thread. */
final class TestingServer implements AutoCloseable {
    interface Session {
        void serve(Socket socket) throws IOException;
    }

    private final ServerSocket serverSocket;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    TestingServer(Session session) throws IOException {
        serverSocket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> accept(session), "test-server-" + serverSocket.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Sends back what it reads; shuts its output once the client has shut its own. */
    static TestingServer echo() throws IOException {
        return new TestingServer(socket -> {
            socket.getInputStream().transferTo(socket.getOutputStream());
            socket.shutdownOutput();
        });
    }

    InetSocketAddress address() {
        return (InetSocketAddress) serverSocket.getLocalSocketAddress();
    }

    @Override
    public void close() throws IOException {
        serverSocket.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }

    private void accept(Session session) {
        while (!serverSocket.isClosed()) {
            try {
                Socket socket = serverSocket.accept();
                sockets.add(socket);
                Thread thread = new Thread(() -> serve(session, socket), "test-session-" + socket.getPort());
                thread.setDaemon(true);
                thread.start();
            } catch (IOException e) {
                if (!serverSocket.isClosed()) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }

    private static void serve(Session session, Socket socket) {
        try (socket) {
            session.serve(socket);
        } catch (IOException e) {
            // The test sees the outcome on its own side of the connection.
        }
    }
}
