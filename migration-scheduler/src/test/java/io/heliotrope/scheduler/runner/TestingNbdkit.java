package io.heliotrope.scheduler.runner;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** {@code nbdkit memory} in the foreground, serving any export name on loopback, stopped by its pid. */
public final class TestingNbdkit implements AutoCloseable {
    private static final Duration READY = Duration.ofSeconds(30);

    private final InetSocketAddress address;
    private final Process process;

    public TestingNbdkit(Path dir, String size) throws IOException {
        this.address = new InetSocketAddress("127.0.0.1", freePort());
        Path log = dir.resolve("nbdkit.log");
        this.process = new ProcessBuilder("nbdkit", "-f", "--exit-with-parent", "-i", "127.0.0.1", "-p", Integer.toString(address.getPort()), "memory", size)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        long end = System.nanoTime() + READY.toNanos();
        while (!accepts()) {
            if (!process.isAlive() || System.nanoTime() > end) {
                close();
                throw new IOException("nbdkit did not listen on " + address + ": " + Files.readString(log));
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    public InetSocketAddress address() {
        return address;
    }

    /** A port free now (bound and released). */
    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() {
        process.destroy();
        // nbdkit waits for its clients on SIGTERM: a QEMU that a failed test left connected would hold it.
        process.onExit().completeOnTimeout(null, 10, TimeUnit.SECONDS).join();
        process.destroyForcibly();
    }

    private boolean accepts() {
        try {
            new Socket(address.getAddress(), address.getPort()).close();
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
