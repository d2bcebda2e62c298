package io.heliotrope.benchmarks.sun;

import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * The clients of one region (paper 4.1.1): sessions spread over the servers of the ensemble
 * (session {@code i} starts at server {@code i mod n}: {@link OrderedHostProvider}), reads and
 * writes of 64-byte znodes in a 9:1 ratio at the rate {@link #offer} is told, open loop, from
 * one thread. A request cut off by a
 * server that goes away (a move) is sent again on its session, which reconnects to another
 * server; its latency runs from the first send to the answer, so moves count.
 */
final class ZkLoad implements AutoCloseable {
    static final int ZNODES = 64;
    static final double READ_SHARE = 0.9;
    private static final int SESSION_TIMEOUT_MS = 40_000;

    private final String region;
    private final List<ZooKeeper> sessions = new ArrayList<>();
    private final LatencyLog log;
    private final byte[] value = new byte[64];
    private final AtomicLong reads = new AtomicLong();
    private final AtomicLong writes = new AtomicLong();
    private final AtomicLong outstanding = new AtomicLong();
    private double due;

    ZkLoad(String region, List<InetSocketAddress> servers, int sessions, LatencyLog log) throws IOException {
        this.region = requireNonNull(region, "region is null");
        this.log = requireNonNull(log, "log is null");
        String connect = servers.stream().map(server -> server.getHostString() + ":" + server.getPort()).collect(Collectors.joining(","));
        for (int i = 0; i < sessions; i++) {
            this.sessions.add(new ZooKeeper(connect, SESSION_TIMEOUT_MS, event -> { }, false, new OrderedHostProvider(servers, i)));
        }
    }

    static String path(int znode) {
        return "/sun/k" + znode;
    }

    /** Sends what {@code rate} requests per second owe over {@code seconds}. */
    void offer(double rate, double seconds) {
        due += rate * seconds;
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (; due >= 1; due--) {
            ZooKeeper session = sessions.get(random.nextInt(sessions.size()));
            Request request = new Request(session, path(random.nextInt(ZNODES)), random.nextDouble() >= READ_SHARE, System.nanoTime());
            (request.write ? writes : reads).incrementAndGet();
            outstanding.incrementAndGet();
            request.send();
        }
    }

    /** Reads and writes offered since the last call. */
    long[] takeCounts() {
        return new long[] {reads.getAndSet(0), writes.getAndSet(0)};
    }

    long outstanding() {
        return outstanding.get();
    }

    /** One request until it is answered, resent on its session while the session reconnects. */
    private final class Request implements AsyncCallback.DataCallback, AsyncCallback.StatCallback {
        final ZooKeeper session;
        final String path;
        final boolean write;
        final long startNanos;
        int attempts;

        Request(ZooKeeper session, String path, boolean write, long startNanos) {
            this.session = session;
            this.path = path;
            this.write = write;
            this.startNanos = startNanos;
        }

        void send() {
            attempts++;
            if (write) {
                session.setData(path, value, -1, this, null);
            } else {
                session.getData(path, false, this, null);
            }
        }

        @Override
        public void processResult(int rc, String path, Object ctx, byte[] data, Stat stat) {
            done(rc);
        }

        @Override
        public void processResult(int rc, String path, Object ctx, Stat stat) {
            done(rc);
        }

        private void done(int rc) {
            Code code = Code.get(rc);
            if (code == Code.CONNECTIONLOSS || code == Code.OPERATIONTIMEOUT) {
                send();
                return;
            }
            outstanding.decrementAndGet();
            log.record(region, write, (System.nanoTime() - startNanos) / 1_000, attempts, code == Code.OK ? "ok" : code.name().toLowerCase());
        }
    }

    /** Closes the sessions; an interrupt stops that, and stays set for the caller. */
    @Override
    public void close() {
        try {
            for (ZooKeeper session : sessions) {
                session.close(2_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
