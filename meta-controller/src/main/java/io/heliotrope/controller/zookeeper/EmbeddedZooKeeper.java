package io.heliotrope.controller.zookeeper;

import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

import static java.util.Objects.requireNonNull;

/**
 * A real, standalone ZooKeeper server inside this process, listening on 127.0.0.1: for
 * unit tests and for the all-in-one {@code helio up}. Its data survives in {@code dataDir}.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EmbeddedZooKeeper.class);
    private static final long START_TIMEOUT_MILLIS = 30_000;
    private static final int FREE_PORT_ATTEMPTS = 3;
    private static final int MAX_CONNECTIONS = 1024;

    private final ZooKeeperServerEmbedded server;
    private final String connectString;

    private EmbeddedZooKeeper(ZooKeeperServerEmbedded server, int port) {
        this.server = server;
        this.connectString = "127.0.0.1:" + port;
    }

    /** Starts a server keeping its data in {@code dataDir}; port 0 picks a free one. */
    public static EmbeddedZooKeeper start(Path dataDir, int port) throws IOException {
        requireNonNull(dataDir, "dataDir is null");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        Files.createDirectories(dataDir);
        // ZooKeeper reads port 0 as "no client port", so a free port is found first; another
        // process may take it in between, hence a few attempts.
        for (int attempt = 1; ; attempt++) {
            int chosen = port == 0 ? freePort() : port;
            try {
                return start(dataDir, chosen, port == 0 ? START_TIMEOUT_MILLIS / FREE_PORT_ATTEMPTS : START_TIMEOUT_MILLIS);
            } catch (IOException e) {
                if (port != 0 || attempt == FREE_PORT_ATTEMPTS) {
                    throw e;
                }
                log.warn("ZooKeeper could not start on port {}, trying another: {}", chosen, e.getMessage());
            }
        }
    }

    private static EmbeddedZooKeeper start(Path dataDir, int port, long timeoutMillis) throws IOException {
        Properties properties = new Properties();
        properties.setProperty("clientPort", Integer.toString(port));
        properties.setProperty("clientPortAddress", "127.0.0.1");
        properties.setProperty("dataDir", dataDir.resolve("data").toAbsolutePath().toString());
        properties.setProperty("admin.enableServer", "false");
        // Without a limit ZooKeeper warns at every start (on helio up's console); its clients are a controller or a few in tests.
        properties.setProperty("maxCnxns", Integer.toString(MAX_CONNECTIONS));
        ZooKeeperServerEmbedded server;
        try {
            server = ZooKeeperServerEmbedded.builder()
                    .baseDir(dataDir)
                    .configuration(properties)
                    .exitHandler(ExitHandler.LOG_ONLY)
                    .build();
        } catch (Exception e) {
            throw new IOException("invalid ZooKeeper configuration in " + dataDir + ": " + e.getMessage(), e);
        }
        try {
            server.start(timeoutMillis);
        } catch (Exception e) {
            server.close();
            throw new IOException("ZooKeeper did not start on 127.0.0.1:" + port + " within " + timeoutMillis + " ms", e);
        }
        log.info("ZooKeeper listening on 127.0.0.1:{}, data in {}", port, dataDir);
        return new EmbeddedZooKeeper(server, port);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** host:port for a ZooKeeper client. */
    public String connectString() {
        return connectString;
    }

    @Override
    public void close() {
        server.close();
    }
}
