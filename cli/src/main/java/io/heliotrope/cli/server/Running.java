package io.heliotrope.cli.server;

import java.util.concurrent.CountDownLatch;

/** Keeps a server command running until the process is asked to stop, then closes the server. */
public final class Running {
    private Running() {}

    public static int untilStopped(AutoCloseable server) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.close();
            } catch (Exception e) {
                e.printStackTrace();
            } finally {
                stopped.countDown();
            }
        }, "shutdown"));
        stopped.await();
        return 0;
    }
}
