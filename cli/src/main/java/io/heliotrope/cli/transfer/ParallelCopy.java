package io.heliotrope.cli.transfer;

import io.heliotrope.nbd.client.NbdClient;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A copy over several NBD connections to one image, each used by a thread of its own
 * (as many as nbdcopy opens, when the server allows several). The first failure stops
 * the other threads, by closing their connections, and is the copy's; {@link #abort}
 * does the same from outside, also before the connections are open.
 */
abstract class ParallelCopy implements Copy {
    static final int CONNECTIONS = 4;

    /** What a thread does with its connection. */
    interface PerConnection {
        void run(NbdClient client) throws IOException;
    }

    private volatile NbdConnections connections;
    private volatile boolean aborted;

    /**
     * Runs {@code task} with each connection to {@code image} on a thread named
     * {@code name-INDEX}, then {@code finish} with the first connection once all are done.
     */
    final void onConnections(NbdImage image, String name, PerConnection task, PerConnection finish) throws IOException, InterruptedException {
        try (NbdConnections opened = NbdConnections.open(image, CONNECTIONS)) {
            connections = opened;
            if (aborted) {
                opened.abort();
            }
            Throwable failure = runAll(name, opened, task);
            if (failure instanceof IOException e) {
                throw e;
            }
            if (failure instanceof RuntimeException e) {
                throw e;
            }
            if (failure instanceof Error e) {
                throw e;
            }
            finish.run(opened.get(0));
        }
    }

    @Override
    public final void abort() {
        aborted = true;
        NbdConnections opened = connections;
        if (opened != null) {
            opened.abort();
        }
    }

    /** The first failure of a thread, null if none failed; the others' follow from it, and are dropped. */
    private static Throwable runAll(String name, NbdConnections connections, PerConnection task) throws InterruptedException {
        Throwable[] first = new Throwable[1];
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < connections.count(); i++) {
            NbdClient client = connections.get(i);
            Thread thread = new Thread(() -> {
                try {
                    task.run(client);
                } catch (Throwable e) {
                    boolean stopOthers;
                    synchronized (first) {
                        stopOthers = first[0] == null;
                        if (stopOthers) {
                            first[0] = e;
                        }
                    }
                    if (stopOthers) {
                        connections.abort();
                    }
                }
            }, name + "-" + i);
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
        return first[0];
    }
}
