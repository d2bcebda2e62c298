package io.heliotrope.benchmarks.cassandra;

import io.heliotrope.wan.LinkConfig;
import io.heliotrope.wan.WanEmulator;
import io.heliotrope.wan.WanLink;
import io.heliotrope.wan.WanUnits;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The emulated WAN in front of every Cassandra node of move.sh, as many links in one JVM
 * (one {@code WanProxyMain} each would be twelve JVMs): a link per node and port listens on
 * the node's broadcast address and forwards to its listen address, so whatever reaches a node
 * through its broadcast address crosses the link, with {@code --delay} each way.
 * <p>
 * Arguments: {@code --delay 37.5ms --bandwidth 1gbit --csv FILE NAME=HOST:PORT>HOST:PORT...}.
 * Every second, and once more when killed, it appends {@code unix_ms,link,forward_bytes,backward_bytes}
 * (totals since the start) for every link to the CSV. Runs until killed.
 */
public final class CassandraWan {
    private CassandraWan() {}

    public static void main(String[] args) throws IOException {
        if (args.length < 7 || !args[0].equals("--delay") || !args[2].equals("--bandwidth") || !args[4].equals("--csv")) {
            System.err.println("usage: CassandraWan --delay 37.5ms --bandwidth 1gbit --csv FILE NAME=HOST:PORT>HOST:PORT...");
            System.exit(1);
        }
        LinkConfig config = new LinkConfig(WanUnits.parseDuration(args[1]), WanUnits.parseBitRate(args[3]),
                WanUnits.parseBytes("6MiB"));
        WanEmulator emulator = new WanEmulator(1);
        List<WanLink> links = new ArrayList<>();
        for (int i = 6; i < args.length; i++) {
            String[] nameAndRoute = args[i].split("=", 2);
            String[] route = nameAndRoute[1].split(">", 2);
            links.add(emulator.addLink(nameAndRoute[0], address(route[0]), address(route[1]), config));
        }
        PrintWriter csv = new PrintWriter(Files.newBufferedWriter(Path.of(args[5])), true);
        csv.println("unix_ms,link,forward_bytes,backward_bytes");
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "wan-counts"));
        Runnable sample = () -> {
            long now = System.currentTimeMillis();
            synchronized (csv) {
                links.forEach(l -> csv.printf("%d,%s,%d,%d%n", now, l.name(), l.forwardBytes(), l.backwardBytes()));
            }
        };
        ticker.scheduleAtFixedRate(sample, 1, 1, TimeUnit.SECONDS);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            ticker.shutdownNow();
            sample.run();
            emulator.close();
        }, "wan-shutdown"));
        System.out.printf("cassandra-wan: %d links, %s%n", links.size(), config);
    }

    private static InetSocketAddress address(String hostAndPort) {
        int colon = hostAndPort.lastIndexOf(':');
        return new InetSocketAddress(hostAndPort.substring(0, colon), Integer.parseInt(hostAndPort.substring(colon + 1)));
    }
}
