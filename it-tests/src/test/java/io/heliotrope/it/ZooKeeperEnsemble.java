package io.heliotrope.it;

import org.apache.zookeeper.client.FourLetterWordMain;
import org.apache.zookeeper.common.X509Exception;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real ZooKeeper ensemble: one {@code QuorumPeerMain} JVM per node on loopback ports,
 * each with its own {@code zoo.cfg} and data directory under one temporary directory.
 * Nodes are numbered from 1, as their {@code myid}. A node can be killed with SIGKILL and
 * restarted on its data and ports; readiness and roles come from the {@code srvr}
 * four-letter word. Closing stops every node and removes the directory.
 */
final class ZooKeeperEnsemble implements AutoCloseable {
    /** The longest session the ensemble grants: a vanished client's session is gone this long after it vanished. */
    static final Duration MAX_SESSION_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration QUORUM_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration FOUR_LETTER_TIMEOUT = Duration.ofSeconds(2);
    private static final Pattern MODE = Pattern.compile("(?m)^Mode: (\\w+)");
    private static final Pattern GLOBAL_SESSIONS = Pattern.compile("(?m)^zk_global_sessions\\s+(\\d+)");
    private static final String MAIN = "org.apache.zookeeper.server.quorum.QuorumPeerMain";
    private static final List<String> JVM_OPTIONS = List.of("-Xmx512m", "-XX:+UseSerialGC");

    private final Path root;
    private final List<Node> nodes;

    private ZooKeeperEnsemble(Path root, List<Node> nodes) {
        this.root = root;
        this.nodes = nodes;
    }

    /** Starts {@code size} nodes and waits until all of them serve under one leader. */
    static ZooKeeperEnsemble start(int size) {
        Path root;
        try {
            root = Files.createTempDirectory("heliotrope-zookeeper-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int[] ports = Ports.free(3 * size);
        List<Node> nodes = IntStream.rangeClosed(1, size)
                .mapToObj(id -> new Node(id, root.resolve("zk-" + id), ports[3 * (id - 1)]))
                .toList();
        ZooKeeperEnsemble ensemble = new ZooKeeperEnsemble(root, nodes);
        try {
            for (Node node : nodes) {
                node.writeConfig(ports);
            }
            nodes.forEach(Node::startProcess);
            ensemble.awaitQuorum();
            return ensemble;
        } catch (RuntimeException | AssertionError e) {
            try {
                ensemble.close();
            } catch (RuntimeException | IOException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    /** The client connect string of every node, {@code host:port,host:port,...}. */
    String connectString() {
        return String.join(",", nodes.stream().map(node -> "127.0.0.1:" + node.clientPort).toList());
    }

    /** The id of the node that leads now. */
    int leader() {
        return nodes.stream()
                .filter(node -> node.isRunning() && "leader".equals(mode(node)))
                .mapToInt(node -> node.id)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no node of the ensemble leads; modes: " + modes()));
    }

    /** SIGKILL: the node vanishes mid-request, as in a crash. */
    void kill9(int id) {
        Node node = node(id);
        node.killed = true;
        node.process.kill9();
    }

    /** Starts a stopped or killed node again on its data and ports and waits until the ensemble is whole. */
    void restart(int id) {
        Node node = node(id);
        assertThat(node.isRunning()).as("zookeeper-%d is running", id).isFalse();
        node.earlierLogs.append(node.process.output()).append("---- restarted ----\n");
        node.startProcess();
        node.killed = false;
        awaitQuorum();
    }

    /** Waits until every node not killed serves and exactly one of them leads (after a leader died: a new election). */
    void awaitQuorum() {
        Await.until("every running ZooKeeper node serves under one leader", QUORUM_TIMEOUT, () -> {
            List<String> modes = new ArrayList<>();
            for (Node node : nodes) {
                if (!node.killed) {
                    if (!node.isRunning()) {
                        throw new AssertionError("zookeeper-" + node.id + " exited; its output:\n" + node.log());
                    }
                    modes.add(mode(node));
                }
            }
            return !modes.contains("") && modes.stream().filter("leader"::equals).count() == 1;
        });
    }

    /** Restarts every node that a test killed and left down. */
    void restartKilled() {
        for (Node node : nodes) {
            if (node.killed) {
                restart(node.id);
            }
        }
    }

    /** Client sessions the ensemble tracks now (the leader's {@code zk_global_sessions}); a killed client's session counts until it expires. */
    int sessions() {
        Matcher sessions = GLOBAL_SESSIONS.matcher(fourLetterWord(leader(), "mntr"));
        assertThat(sessions.find()).as("the leader reports zk_global_sessions").isTrue();
        return Integer.parseInt(sessions.group(1));
    }

    /** Sends a four-letter word ({@code srvr}, {@code mntr}) to a node; empty when it does not answer. */
    private String fourLetterWord(int id, String word) {
        return fourLetterWord(node(id), word);
    }

    /** What every node printed, across restarts. */
    String log() {
        StringBuilder log = new StringBuilder();
        for (Node node : nodes) {
            log.append("---- zookeeper-").append(node.id).append(" ----\n").append(node.log());
        }
        return log.toString();
    }

    @Override
    public void close() throws IOException {
        try {
            for (Node node : nodes) {
                if (node.process != null) {
                    node.process.close();
                }
            }
        } finally {
            Tools.deleteRecursively(root);
        }
    }

    private List<String> modes() {
        return nodes.stream().map(node -> node.id + "=" + (node.isRunning() ? mode(node) : "down")).toList();
    }

    private static String mode(Node node) {
        Matcher mode = MODE.matcher(fourLetterWord(node, "srvr"));
        return mode.find() ? mode.group(1) : "";
    }

    private static String fourLetterWord(Node node, String word) {
        try {
            return FourLetterWordMain.send4LetterWord(InetAddress.getLoopbackAddress().getHostAddress(), node.clientPort, word, false,
                    (int) FOUR_LETTER_TIMEOUT.toMillis());
        } catch (IOException | X509Exception.SSLContextException e) {
            return "";
        }
    }

    private Node node(int id) {
        assertThat(id).as("node id").isBetween(1, nodes.size());
        return nodes.get(id - 1);
    }

    private static final class Node {
        final int id;
        final Path dir;
        final int clientPort;
        final StringBuilder earlierLogs = new StringBuilder();
        ChildProcess process;
        boolean killed;

        Node(int id, Path dir, int clientPort) {
            this.id = id;
            this.dir = dir;
            this.clientPort = clientPort;
        }

        /** Ports come in threes per node: client, quorum, election. */
        void writeConfig(int[] ports) {
            List<String> lines = new ArrayList<>(List.of(
                    "tickTime=500",
                    "initLimit=20",
                    "syncLimit=10",
                    "maxSessionTimeout=" + MAX_SESSION_TIMEOUT.toMillis(),
                    "dataDir=" + dir.resolve("data"),
                    "clientPortAddress=127.0.0.1",
                    "clientPort=" + clientPort,
                    "admin.enableServer=false",
                    "4lw.commands.whitelist=srvr,mntr,stat",
                    // Only whole processes die in these tests, never the machine: the page cache keeps what was written.
                    "forceSync=no"));
            for (int i = 0; i < ports.length / 3; i++) {
                lines.add("server.%d=127.0.0.1:%d:%d".formatted(i + 1, ports[3 * i + 1], ports[3 * i + 2]));
            }
            try {
                Files.createDirectories(dir.resolve("data"));
                Files.writeString(dir.resolve("data").resolve("myid"), id + "\n");
                Files.write(dir.resolve("zoo.cfg"), lines);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        void startProcess() {
            List<String> jvmOptions = new ArrayList<>(JVM_OPTIONS);
            jvmOptions.add("-Djava.io.tmpdir=" + dir);
            process = ChildProcess.start("zookeeper-" + id, Tools.javaCommand(jvmOptions, MAIN, dir.resolve("zoo.cfg").toString()));
        }

        boolean isRunning() {
            return process != null && process.isAlive();
        }

        String log() {
            return earlierLogs + (process == null ? "" : process.output());
        }
    }
}
