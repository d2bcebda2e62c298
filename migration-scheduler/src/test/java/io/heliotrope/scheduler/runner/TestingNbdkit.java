package io.heliotrope.scheduler.runner;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** {@code nbdkit memory}, serving any export name on loopback; nbdkit forks into the background once it listens. */
public final class TestingNbdkit implements AutoCloseable {
    private final InetSocketAddress address;
    private final long pid;

    public TestingNbdkit(Path dir, String size) throws IOException, InterruptedException {
        this.address = new InetSocketAddress("127.0.0.1", freePort());
        Path pidfile = dir.resolve("nbdkit.pid");
        Process process = new ProcessBuilder("nbdkit", "-P", pidfile.toString(), "-i", "127.0.0.1", "-p", Integer.toString(address.getPort()), "memory", size)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("nbdkit.log").toFile())
                .start();
        if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException("nbdkit did not start: " + Files.readString(dir.resolve("nbdkit.log")));
        }
        this.pid = Long.parseLong(Files.readString(pidfile, StandardCharsets.US_ASCII).strip());
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
        ProcessHandle.of(pid).ifPresent(handle -> {
            handle.destroy();
            handle.onExit().orTimeout(10, TimeUnit.SECONDS).join();
        });
    }
}
