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

import java.io.PrintWriter;
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
                    options.initial().length);
            mover.startAll(options.initial());
            log("the ensemble serves at " + sitesOf(sites, mover.placement()));
            createZnodes(connect(wan, 0, 3));
            timeline.println("t_s,hour,rate_" + sites.get(0) + ",rate_" + sites.get(1) + ",sites,leader,moving");
            decisions.println("t_s,outcome,current,best,moves,reason");
            ExecutorService moving = Executors.newSingleThreadExecutor(task -> new Thread(task, "cold-mover"));
            List<ZkLoad> loads = new ArrayList<>();
            long start = System.nanoTime();
            mover.startTrace(start);
            try (LatencyLog latency = new LatencyLog(out.resolve("latency.csv"), start)) {
                for (int region = 0; region < sites.size(); region++) {
                    loads.add(new ZkLoad(sites.get(region), connect(wan, region, 3), options.sessions(), latency));
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
        log("done");
    }

    private static void run(SunOptions options, long start, ColdMover mover, List<ZkLoad> loads, Optional<ManagedChannel> channel, PrintWriter timeline,
            PrintWriter decisions, ExecutorService moving) throws Exception {
        List<String> sites = options.sites();
        long dayNanos = options.day().toNanos();
        long endNanos = dayNanos * options.days();
        long nextSecond = 0;
        long nextReport = options.reportEvery().toNanos();
        long nextDecision = options.decideEvery().toNanos();
        long last = start;
        Future<?> move = null;
        int leader = mover.leader();
        while (true) {
            long now = System.nanoTime();
            long elapsed = now - start;
            if (elapsed >= endNanos) {
                break;
            }
            double hour = 24.0 * elapsed / dayNanos;
            for (int region = 0; region < loads.size(); region++) {
                loads.get(region).offer(options.peak() * DiurnalCurve.fraction(hour, region), (now - last) / 1e9);
            }
            last = now;
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
                        log("the scheduler moves " + targets + " (" + decision.getReason() + ")");
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
            log(left + " requests still unanswered 60 s after the end; left out of latency.csv");
        }
    }

    /** A connect string of the servers as {@code region} reaches them. */
    private static String connect(ZkWan wan, int region, int servers) {
        return IntStream.rangeClosed(1, servers).mapToObj(server -> {
            var address = wan.address(region, server, Port.CLIENT);
            return address.getHostString() + ":" + address.getPort();
        }).collect(Collectors.joining(","));
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

    static void log(String message) {
        System.err.printf("%tT follow-the-sun: %s%n", System.currentTimeMillis(), message);
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
