package io.heliotrope.benchmarks.sun;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.heliotrope.benchmarks.sun.ZkWan.Port;
import io.heliotrope.proto.scheduler.v1.Decision;
import io.heliotrope.proto.scheduler.v1.DecisionOutcome;
import io.heliotrope.proto.scheduler.v1.GetApplicationRequest;
import io.heliotrope.proto.scheduler.v1.Move;
import io.heliotrope.proto.scheduler.v1.ReportWorkloadRequest;
import io.heliotrope.proto.scheduler.v1.SchedulerServiceGrpc;
import io.heliotrope.scheduler.migration.ClusterCalls;
import io.heliotrope.scheduler.migration.grpc.GrpcClusterCalls;
import io.heliotrope.wan.LinkConfig;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * One placement of follow-the-sun (issue #24 part 3, paper 4.1.1) for {@code follow.sh}: starts
 * the ensemble, drives both regions' clients along the diurnal curve and, for the scheduler's
 * placement, reports the workload and carries out what the scheduler decides, cold. Writes
 * {@code latency.csv}, {@code timeline.csv}, {@code moves.csv}, {@code decisions.csv} and
 * {@code wan.csv} into {@code --out}. See {@code benchmarks/sun/README.md}.
 */
public final class FollowTheSun {
    private static final Logger log = LoggerFactory.getLogger(FollowTheSun.class);
    private static final long TICK_MS = 10;

    private FollowTheSun() {}

    public static void main(String[] args) throws Exception {
        SunOptions options = SunOptions.parse(args);
        Path out = options.out();
        Files.createDirectories(out);
        List<String> sites = options.sites();
        Optional<ManagedChannel> channel = options.controller().map(target -> ManagedChannelBuilder.forTarget(target).usePlaintext().build());
        Optional<ClusterCalls> controller = channel.map(c -> new GrpcClusterCalls(c, options.controller().get(), Duration.ofSeconds(10)));
        try (ZkWan wan = new ZkWan(LinkConfig.parse(options.rtt(), options.bandwidth()), sites, options.ports());
                PrintWriter moves = new PrintWriter(Files.newBufferedWriter(out.resolve("moves.csv")));
                PrintWriter timeline = new PrintWriter(Files.newBufferedWriter(out.resolve("timeline.csv")));
                PrintWriter decisions = new PrintWriter(Files.newBufferedWriter(out.resolve("decisions.csv")))) {
            ColdMover mover = new ColdMover(options.nodeScript(), options.work(), wan, sites, options.nbd(), options.imagePrefix(), controller, moves,
                    options.initial().size());
            mover.startAll(options.initial());
            log.info("ensemble: serves at {}", sitesOf(sites, mover.placement()));
            createZnodes(connect(servers(wan, 0, 3)));
            timeline.println("t_s,hour,rate_" + sites.get(0) + ",rate_" + sites.get(1) + ",sites,leader,moving");
            decisions.println("t_s,outcome,current,best,moves,reason");
            ExecutorService moving = Executors.newSingleThreadExecutor(task -> new Thread(task, "cold-mover"));
            List<ZkLoad> loads = new ArrayList<>();
            long start = System.nanoTime();
            mover.startTrace(start);
            try (LatencyLog latency = new LatencyLog(out.resolve("latency.csv"), start)) {
                for (int region = 0; region < sites.size(); region++) {
                    loads.add(new ZkLoad(sites.get(region), servers(wan, region, 3), options.sessions(), latency));
                }
                run(options, start, mover, loads, channel, timeline, decisions, moving);
                awaitAnswers(loads);
                for (ZkLoad load : loads) {
                    load.close();
                }
            } finally {
                moving.shutdownNow();
                moving.awaitTermination(200, TimeUnit.SECONDS);
                mover.stopAll();
            }
            try (PrintWriter bytes = new PrintWriter(Files.newBufferedWriter(out.resolve("wan.csv")))) {
                bytes.println("port,forward_bytes,backward_bytes");
                wan.bytes().forEach((port, each) -> bytes.printf("%s,%d,%d%n", port.name().toLowerCase(), each[0], each[1]));
            }
        } finally {
            channel.ifPresent(ManagedChannel::shutdownNow);
        }
        log.info("{}: done", out);
    }

    private static void run(SunOptions options, long start, ColdMover mover, List<ZkLoad> loads, Optional<ManagedChannel> channel, PrintWriter timeline,
            PrintWriter decisions, ExecutorService moving) throws Exception {
        long endNanos = options.day().toNanos() * options.days();
        // The load has a thread of its own: the blocking calls below (srvr probes, the scheduler)
        // must not delay it and then send what it owes in a burst.
        ScheduledExecutorService pacer = Executors.newSingleThreadScheduledExecutor(task -> new Thread(task, "load-pacer"));
        ScheduledFuture<?> offering = pacer.scheduleAtFixedRate(new Offering(options, loads, start, endNanos), 0, TICK_MS, TimeUnit.MILLISECONDS);
        try {
            runDecisions(options, start, endNanos, mover, loads, channel, timeline, decisions, moving, offering);
        } finally {
            pacer.shutdownNow();
            pacer.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    /** Each tick, what the diurnal curve says each region owes since the last one. */
    private static final class Offering implements Runnable {
        private final SunOptions options;
        private final List<ZkLoad> loads;
        private final long start;
        private final long endNanos;
        private long last;

        Offering(SunOptions options, List<ZkLoad> loads, long start, long endNanos) {
            this.options = options;
            this.loads = loads;
            this.start = start;
            this.endNanos = endNanos;
            this.last = start;
        }

        @Override
        public void run() {
            long now = System.nanoTime();
            long elapsed = Math.min(now - start, endNanos);
            double hour = 24.0 * elapsed / options.day().toNanos();
            for (int region = 0; region < loads.size(); region++) {
                loads.get(region).offer(options.peak() * DiurnalCurve.fraction(hour, region), (start + elapsed - last) / 1e9);
            }
            last = start + elapsed;
        }
    }

    private static void runDecisions(SunOptions options, long start, long endNanos, ColdMover mover, List<ZkLoad> loads, Optional<ManagedChannel> channel,
            PrintWriter timeline, PrintWriter decisions, ExecutorService moving, ScheduledFuture<?> offering) throws Exception {
        List<String> sites = options.sites();
        long dayNanos = options.day().toNanos();
        long nextSecond = 0;
        long nextReport = options.reportEvery().toNanos();
        long nextDecision = options.decideEvery().toNanos();
        Future<?> move = null;
        int leader = mover.leader();
        while (true) {
            long elapsed = System.nanoTime() - start;
            if (elapsed >= endNanos) {
                break;
            }
            if (offering.isDone()) {
                offering.get();   // the load's thread failed: its exception
            }
            double hour = 24.0 * elapsed / dayNanos;
            boolean busy = move != null && !move.isDone();
            if (move != null && move.isDone()) {
                move.get();
                move = null;
            }
            if (elapsed >= nextSecond) {
                leader = mover.leader();
                timeline.printf("%.3f,%.3f,%.2f,%.2f,%s,%s,%d%n", elapsed / 1e9, hour, options.peak() * DiurnalCurve.fraction(hour, 0),
                        options.peak() * DiurnalCurve.fraction(hour, 1), sitesOf(sites, mover.placement()), leader == 0 ? "" : ColdMover.name(leader),
                        busy ? 1 : 0);
                timeline.flush();
                nextSecond += 1_000_000_000L;
            }
            if (channel.isPresent() && elapsed >= nextReport) {
                report(channel.get(), options, loads, leader);
                nextReport += options.reportEvery().toNanos();
            }
            if (channel.isPresent() && elapsed >= nextDecision) {
                nextDecision += options.decideEvery().toNanos();
                if (!busy) {
                    Decision decision = SchedulerServiceGrpc.newBlockingStub(channel.get()).withDeadlineAfter(10, TimeUnit.SECONDS)
                            .explain(GetApplicationRequest.newBuilder().setName(options.app()).build());
                    decisions.printf("%.3f,%s,%s,%s,%s,\"%s\"%n", elapsed / 1e9, decision.getOutcome().name().replace("DECISION_OUTCOME_", "").toLowerCase(),
                            String.join("|", decision.getCurrent().getSitesList()), String.join("|", decision.getBest().getSitesList()),
                            decision.getMovesList().stream().map(m -> m.getVm() + ">" + m.getToSite()).collect(Collectors.joining(" ")),
                            decision.getReason().replace("\"", "'"));
                    decisions.flush();
                    if (decision.getOutcome() == DecisionOutcome.DECISION_OUTCOME_MOVE) {
                        Map<Integer, Integer> targets = new TreeMap<>();
                        for (Move each : decision.getMovesList()) {
                            targets.put(Integer.parseInt(each.getVm().substring(2)), sites.indexOf(each.getToSite()));
                        }
                        log.info("{}: the scheduler moves {} ({})", options.app(), targets, decision.getReason());
                        move = moving.submit(() -> mover.move(targets));
                    }
                }
            }
            Thread.sleep(TICK_MS);
        }
        if (move != null) {
            move.get();
        }
    }

    /** The reads and writes each region's clients offered since the last report, per second, and the leader. */
    private static void report(ManagedChannel channel, SunOptions options, List<ZkLoad> loads, int leader) {
        double seconds = options.reportEvery().toMillis() / 1000.0;
        StringBuilder json = new StringBuilder("{");
        if (leader != 0) {
            json.append("\"leader\":\"").append(ColdMover.name(leader)).append("\",");
        }
        json.append("\"frontEnds\":[");
        for (int region = 0; region < loads.size(); region++) {
            long[] counts = loads.get(region).takeCounts();
            json.append(region == 0 ? "" : ",").append(String.format("{\"site\":\"%s\",\"reads\":%.2f,\"writes\":%.2f}",
                    options.sites().get(region), counts[0] / seconds, counts[1] / seconds));
        }
        json.append("]}");
        SchedulerServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
                .reportWorkload(ReportWorkloadRequest.newBuilder().setApplication(options.app()).setJson(json.toString()).build());
    }

    private static void awaitAnswers(List<ZkLoad> loads) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (loads.stream().mapToLong(ZkLoad::outstanding).sum() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        long left = loads.stream().mapToLong(ZkLoad::outstanding).sum();
        if (left > 0) {
            log.warn("load: {} requests still unanswered 60 s after the end; left out of latency.csv", left);
        }
    }

    /** The servers' client addresses as {@code region} reaches them, in server order. */
    private static List<InetSocketAddress> servers(ZkWan wan, int region, int servers) {
        return IntStream.rangeClosed(1, servers).mapToObj(server -> wan.address(region, server, Port.CLIENT)).toList();
    }

    private static String connect(List<InetSocketAddress> servers) {
        return servers.stream().map(server -> server.getHostString() + ":" + server.getPort()).collect(Collectors.joining(","));
    }

    private static void createZnodes(String connect) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connect, 30_000, event -> {
            if (event.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        try {
            if (!connected.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("no ZooKeeper session within 60 s at " + connect);
            }
            create(zk, "/sun");
            for (int znode = 0; znode < ZkLoad.ZNODES; znode++) {
                create(zk, ZkLoad.path(znode));
            }
        } finally {
            zk.close();
        }
    }

    private static void create(ZooKeeper zk, String path) throws Exception {
        try {
            zk.create(path, new byte[64], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        } catch (KeeperException.NodeExistsException e) {
            // the image kept it from an earlier start
        }
    }

    private static String sitesOf(List<String> sites, int[] placement) {
        return IntStream.range(1, placement.length).mapToObj(server -> sites.get(placement[server])).collect(Collectors.joining("|"));
    }

    /** Ports by kind, from {@code CLIENT,QUORUM,ELECTION}. */
    static Map<Port, Integer> ports(String text) {
        String[] parts = text.split(",");
        Map<Port, Integer> ports = new HashMap<>();
        for (Port port : Port.values()) {
            ports.put(port, Integer.parseInt(parts[port.ordinal()].strip()));
        }
        return ports;
    }
}
