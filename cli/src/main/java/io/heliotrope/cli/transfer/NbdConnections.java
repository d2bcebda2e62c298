package io.heliotrope.cli.transfer;

import io.heliotrope.nbd.client.NbdClient;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The NBD connections of one copy, each used by one thread: as many as asked for when
 * the server lets several share the image (multi-conn), else one.
 */
final class NbdConnections implements AutoCloseable {
    private final List<NbdClient> clients;

    private NbdConnections(List<NbdClient> clients) {
        this.clients = clients;
    }

    static NbdConnections open(NbdImage image, int wanted) throws IOException {
        List<NbdClient> clients = new ArrayList<>();
        try {
            clients.add(NbdClient.connect(image.socketAddress(), image.name()));
            int count = clients.get(0).canMultiConn() ? wanted : 1;
            while (clients.size() < count) {
                clients.add(NbdClient.connect(image.socketAddress(), image.name()));
            }
            return new NbdConnections(clients);
        } catch (IOException | RuntimeException e) {
            new NbdConnections(clients).abort();
            throw e;
        }
    }

    int count() {
        return clients.size();
    }

    NbdClient get(int index) {
        return clients.get(index);
    }

    long size() {
        return clients.get(0).size();
    }

    /** Closes every connection at once, from any thread: the calls blocked on them fail. */
    void abort() {
        for (NbdClient client : clients) {
            try {
                client.abort();
            } catch (IOException e) {
                // Closing a socket that is failing anyway.
            }
        }
    }

    /** Disconnects politely where a connection is sound and idle; closes every one. */
    @Override
    public void close() throws IOException {
        IOException failure = null;
        for (NbdClient client : clients) {
            try {
                client.close();
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
