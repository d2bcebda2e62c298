package io.heliotrope.benchmarks.controller;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * ZooKeeper's own count of the bytes it holds ({@code zk_approximate_data_size}: paths
 * plus data of every znode), read from the leader with the {@code srvr} and {@code mntr}
 * four-letter words, to check what the controller reports about itself. The leader has
 * applied every write that any server has acknowledged.
 */
final class ZooKeeperStats {
    private static final int TIMEOUT_MILLIS = 5_000;
    private static final Pattern DATA_SIZE = Pattern.compile("(?m)^zk_approximate_data_size\\s+(\\d+)");

    private final List<InetSocketAddress> servers;

    ZooKeeperStats(String connectString) {
        this.servers = List.of(connectString.split(",")).stream()
                .map(server -> new InetSocketAddress(server.substring(0, server.lastIndexOf(':')), Integer.parseInt(server.substring(server.lastIndexOf(':') + 1))))
                .toList();
    }

    long dataBytes() {
        for (InetSocketAddress server : servers) {
            if (isLeader(server)) {
                Matcher size = DATA_SIZE.matcher(fourLetterWord(server, "mntr"));
                if (size.find()) {
                    return Long.parseLong(size.group(1));
                }
            }
        }
        throw new IllegalStateException("no leader among " + servers + " answered mntr with zk_approximate_data_size");
    }

    private static boolean isLeader(InetSocketAddress server) {
        try {
            return fourLetterWord(server, "srvr").contains("Mode: leader");
        } catch (UncheckedIOException e) {
            return false;
        }
    }

    private static String fourLetterWord(InetSocketAddress server, String word) {
        try (Socket socket = new Socket()) {
            socket.connect(server, TIMEOUT_MILLIS);
            socket.setSoTimeout(TIMEOUT_MILLIS);
            OutputStream out = socket.getOutputStream();
            out.write(word.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot ask " + server + " for " + word, e);
        }
    }
}
