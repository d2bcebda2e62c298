package io.heliotrope.benchmarks.controller;

import org.apache.zookeeper.client.FourLetterWordMain;
import org.apache.zookeeper.common.X509Exception;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
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
        try {
            return FourLetterWordMain.send4LetterWord(server.getHostString(), server.getPort(), word, false, TIMEOUT_MILLIS);
        } catch (IOException | X509Exception.SSLContextException e) {
            throw new UncheckedIOException("cannot ask " + server + " for " + word, e instanceof IOException io ? io : new IOException(e));
        }
    }
}
