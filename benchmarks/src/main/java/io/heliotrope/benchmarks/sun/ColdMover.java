package io.heliotrope.benchmarks.sun;

import io.heliotrope.benchmarks.sun.ZkWan.Port;
import io.heliotrope.proto.controller.v1.MigrationInFlight;
import io.heliotrope.proto.controller.v1.MigrationOutcome;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.scheduler.migration.ClusterCalls;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * The ensemble's servers as plain processes, and their cold moves: a server moves by stopping,
 * detaching its data image at its site, its links turned round, the image attached at the new
 * site and the server started there with the same {@code myid} and data ({@code node.sh} does
 * the processes and mounts). Several moves go one at a time, the leader last, so that the
 * ensemble elects once. With a controller, each move is recorded on the server's placeholder
 * VM as the driver records a live one (in flight while it runs, then its new site and a
 * completed migration), which is what the scheduler's next decision reads.
 */
final class ColdMover {
    static final String REQUESTED_BY = "follow-the-sun cold mover";
    private static final long SERVE_TIMEOUT_MS = 180_000;

    /** The steps of {@code node.sh}. */
    private enum Step {
        /** A new image: the file system made, then attached. */
        FORMAT_AND_ATTACH("attach"),
        ATTACH("attach"),
        START("start"),
        STOP("stop"),
        DETACH("detach");

        private final String action;

        Step(String action) {
            this.action = action;
        }
    }

    private final Path nodeScript;
    private final Path work;
    private final ZkWan wan;
    private final List<String> sites;
    private final Map<String, String> nbd;
    private final String imagePrefix;
    private final Optional<ClusterCalls> controller;
    private final PrintWriter moves;
    /** When the trace started (System.nanoTime()); moves.csv counts from it. */
    private volatile long traceStart;
    private final int[] placement;

    ColdMover(Path nodeScript, Path work, ZkWan wan, List<String> sites, Map<String, String> nbd, String imagePrefix,
            Optional<ClusterCalls> controller, PrintWriter moves, int servers) {
        this.nodeScript = requireNonNull(nodeScript, "nodeScript is null");
        this.work = requireNonNull(work, "work is null");
        this.wan = requireNonNull(wan, "wan is null");
        this.sites = List.copyOf(sites);
        this.nbd = Map.copyOf(nbd);
        this.imagePrefix = requireNonNull(imagePrefix, "imagePrefix is null");
        this.controller = requireNonNull(controller, "controller is null");
        this.moves = requireNonNull(moves, "moves is null");
        this.placement = new int[servers + 1];
        moves.println("server,from,to,was_leader,start_s,end_s");
    }

    /** Moves are timed from {@code nanos} (a {@link System#nanoTime()}) on. */
    void startTrace(long nanos) {
        traceStart = nanos;
    }

    static String name(int server) {
        return "zk" + server;
    }

    /** Site index of each server (1-based), as a copy. */
    synchronized int[] placement() {
        return placement.clone();
    }

    /** Starts every server at its site of {@code initial} (0-based site per server) and waits for a leader. */
    void startAll(List<Integer> initial) {
        for (int server = 1; server < placement.length; server++) {
            placement[server] = initial.get(server - 1);
            wan.place(server, placement[server]);
            node(Step.FORMAT_AND_ATTACH, server, placement[server]);
            node(Step.START, server, placement[server]);
        }
        for (int server = 1; server < placement.length; server++) {
            awaitServing(server);
        }
    }

    /** Moves each server of {@code targets} (server -> site index) that is elsewhere: the others first, the leader last. */
    void move(Map<Integer, Integer> targets) {
        int leader = leader();
        List<Integer> order = new ArrayList<>();
        targets.keySet().stream().filter(server -> server != leader).sorted().forEach(order::add);
        if (targets.containsKey(leader)) {
            order.add(leader);
        }
        for (int server : order) {
            if (placement()[server] != targets.get(server)) {
                moveOne(server, targets.get(server), server == leader);
            }
        }
    }

    private void moveOne(int server, int to, boolean wasLeader) {
        int from = placement()[server];
        String id = UUID.randomUUID().toString();
        long startedMillis = System.currentTimeMillis();
        long started = System.nanoTime();
        controller.ifPresent(cluster -> cluster.reportMigration(name(server), MigrationInFlight.newBuilder().setId(id)
                .setFromSite(sites.get(from)).setToSite(sites.get(to)).setPhase("cold").setStartedEpochMillis(startedMillis)
                .setReportedEpochMillis(startedMillis).setRequestedBy(REQUESTED_BY).build()));
        node(Step.STOP, server, from);
        node(Step.DETACH, server, from);
        synchronized (this) {
            placement[server] = to;
        }
        wan.place(server, to);
        node(Step.ATTACH, server, to);
        node(Step.START, server, to);
        awaitServing(server);
        long micros = (System.nanoTime() - started) / 1_000;
        controller.ifPresent(cluster -> {
            cluster.moveVm(name(server), sites.get(to), cluster.vm(name(server)).getVersion());
            cluster.recordMigration(name(server), MigrationRecord.newBuilder().setId(id).setFromSite(sites.get(from)).setToSite(sites.get(to))
                    .setOutcome(MigrationOutcome.MIGRATION_OUTCOME_COMPLETED).setRequestedBy(REQUESTED_BY)
                    .setStartedEpochMillis(startedMillis).setTotalMicros(micros).setDowntimeMicros(micros).build());
        });
        synchronized (moves) {
            moves.printf("%s,%s,%s,%s,%.3f,%.3f%n", name(server), sites.get(from), sites.get(to), wasLeader,
                    (started - traceStart) / 1e9, (started - traceStart) / 1e9 + micros / 1e6);
            moves.flush();
        }
    }

    /** Stops every server and detaches its image. */
    void stopAll() {
        for (int server = 1; server < placement.length; server++) {
            node(Step.STOP, server, placement[server]);
            node(Step.DETACH, server, placement[server]);
        }
    }

    /** The server that leads now, 0 when none says it does. */
    int leader() {
        int[] sitesNow = placement();
        for (int server = 1; server < sitesNow.length; server++) {
            if (mode(server, sitesNow[server]).equals("leader")) {
                return server;
            }
        }
        return 0;
    }

    private void awaitServing(int server) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SERVE_TIMEOUT_MS);
        while (System.nanoTime() < deadline) {
            String mode = mode(server, placement()[server]);
            if (mode.equals("leader") || mode.equals("follower")) {
                return;
            }
            pause(200);
        }
        throw new IllegalStateException(name(server) + " does not serve " + SERVE_TIMEOUT_MS / 1000 + " s after its start");
    }

    /** What ZooKeeper's {@code srvr} says the server is ("leader", "follower", ...), "" when it does not serve. */
    private String mode(int server, int site) {
        InetSocketAddress address = wan.address(site, server, Port.CLIENT);
        try (Socket socket = new Socket()) {
            socket.connect(address, 1_000);
            socket.setSoTimeout(2_000);
            OutputStream out = socket.getOutputStream();
            out.write("srvr".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String reply = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            int at = reply.indexOf("Mode: ");
            return at < 0 ? "" : reply.substring(at + 6).lines().findFirst().orElse("").strip();
        } catch (IOException e) {
            return "";
        }
    }

    private void node(Step step, int server, int site) {
        Path dir = work.resolve(name(server));
        List<String> command = new ArrayList<>(List.of("bash", nodeScript.toString(), step.action, dir.toString()));
        switch (step) {
            case FORMAT_AND_ATTACH, ATTACH -> command.add("nbd://" + nbd.get(sites.get(site)) + "/" + imagePrefix + name(server));
            case START -> command.add(dir.resolve("zoo-" + sites.get(site) + ".cfg").toString());
            case STOP, DETACH -> { }
        }
        if (step == Step.FORMAT_AND_ATTACH) {
            command.add("mkfs");
        }
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(work.resolve("node.log").toFile())).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + ": no exit after 120 s");
            }
        } catch (InterruptedException e) {
            // node.sh must not go on mounting or starting behind our back: TERM it and give it time to end.
            process.destroy();
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException again) {
                process.destroyForcibly();
            }
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + String.join(" ", command), e);
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed (" + process.exitValue() + "), see " + work.resolve("node.log"));
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
