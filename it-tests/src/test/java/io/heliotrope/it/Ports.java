package io.heliotrope.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Free loopback ports for servers whose port must be known before they start (a quorum's config, a restart on the same port). */
final class Ports {
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
            for (ServerSocket socket : held) {
                try {
                    socket.close();
                } catch (IOException e) {
                    // closing a socket that never accepted anything cannot lose data
                }
            }
        }
    }
}
