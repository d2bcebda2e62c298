package io.heliotrope.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Free loopback ports for servers whose port must be known before they start (a quorum's config, a restart on the same port). */
final class Ports {
    private static final int RUN_ATTEMPTS = 100;

    private Ports() {}

    /** {@code count} distinct ports that nothing listened on a moment ago; all are held open together, so none repeats. */
    static int[] free(int count) {
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                held.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
            }
            return held.stream().mapToInt(ServerSocket::getLocalPort).toArray();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find " + count + " free ports", e);
        } finally {
            closeAll(held);
        }
    }

    /** The first of {@code count} consecutive ports that nothing listened on a moment ago, for helio up, whose second site takes each port plus one. */
    static int freeRun(int count) {
        for (int attempt = 0; attempt < RUN_ATTEMPTS; attempt++) {
            int first = free(1)[0];
            if (first + count - 1 <= 65535 && allFree(first, count)) {
                return first;
            }
        }
        throw new IllegalStateException("no " + count + " consecutive free ports in " + RUN_ATTEMPTS + " attempts");
    }

    private static boolean allFree(int first, int count) {
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int port = first; port < first + count; port++) {
                held.add(new ServerSocket(port, 1, InetAddress.getLoopbackAddress()));
            }
            return true;
        } catch (IOException e) {
            return false;
        } finally {
            closeAll(held);
        }
    }

    private static void closeAll(List<ServerSocket> sockets) {
        for (ServerSocket socket : sockets) {
            try {
                socket.close();
            } catch (IOException e) {
                // closing a socket that never accepted anything cannot lose data
            }
        }
    }
}
