package io.heliotrope.it;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free loopback ports for servers whose port must be known before they start (a quorum's config, a restart on the same
 * port). They come from below Linux's ephemeral range (32768-60999): a port from that range, free when a server died,
 * can be taken by any outgoing connection or port-0 listener before the server restarts on it.
 */
final class Ports {
    private static final int FIRST = 20_000;
    private static final int LAST = 32_767;
    /** Ports are handed out in order from a random start, so that this JVM never hands out one twice and two JVMs rarely meet. */
    private static int next = FIRST + ThreadLocalRandom.current().nextInt(LAST - FIRST);

    private Ports() {}

    /** {@code count} distinct ports that nothing listened on a moment ago. */
    static int[] free(int count) {
        int[] ports = new int[count];
        for (int i = 0; i < count; i++) {
            ports[i] = freeRun(1);
        }
        return ports;
    }

    /** The first of {@code count} consecutive ports that nothing listened on a moment ago, for helio up, whose second site takes each port plus one. */
    static synchronized int freeRun(int count) {
        for (int tried = 0; tried <= LAST - FIRST; tried++) {
            if (next + count - 1 > LAST) {
                next = FIRST;
            }
            int first = next;
            next += count;
            if (allFree(first, count)) {
                return first;
            }
        }
        throw new IllegalStateException("no " + count + " consecutive free ports in " + FIRST + "-" + LAST);
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
