package io.heliotrope.controller.app;

import io.heliotrope.controller.TestingController;
import io.heliotrope.controller.ZooKeeperExtension;
import io.heliotrope.controller.metrics.ControllerMetrics;
import io.heliotrope.controller.zookeeper.EmbeddedZooKeeper;
import io.heliotrope.controller.zookeeper.ZooKeeperLayout;
import io.heliotrope.controller.zookeeper.ZooKeeperStore;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/** Two schedulers, each on a ZooKeeper session of its own, as two controllers are. */
@ExtendWith(ZooKeeperExtension.class)
class TestZooKeeperElection {
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final String FIRST = "127.0.0.1:7400";
    private static final String SECOND = "127.0.0.1:7401";

    private final ControllerMetrics metrics = new ControllerMetrics();
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();
    private final ZooKeeperLayout layout = new ZooKeeperLayout(TestingController.newRoot());
    private EmbeddedZooKeeper server;

    @BeforeEach
    void start(EmbeddedZooKeeper server) {
        this.server = server;
    }

    @AfterEach
    void stop() throws Exception {
        while (!resources.isEmpty()) {
            resources.pop().close();
        }
        metrics.close();
    }

    @Test
    void oneOfTwoLeadsAndTheOtherTakesOverWhenItLeaves() {
        ZooKeeperElection first = election(session(), FIRST);
        ZooKeeperElection second = election(session(), SECOND);

        awaitCondition("a leader", () -> first.isLeader() || second.isLeader());
        assertThat(first.isLeader()).as("exactly one leads").isNotEqualTo(second.isLeader());
        ZooKeeperElection leader = first.isLeader() ? first : second;
        ZooKeeperElection other = leader == first ? second : first;
        String leaderId = leader == first ? FIRST : SECOND;
        assertThat(leader.leader()).hasValue(leaderId);
        assertThat(other.leader()).hasValue(leaderId);

        leader.close();
        awaitCondition("the other to lead", other::isLeader);
        assertThat(other.leader()).hasValue(leader == first ? SECOND : FIRST);
        assertThat(leader.isLeader()).isFalse();
        leader.close();
    }

    @Test
    void aLeaderWhoseSessionExpiresHandsOverAndJoinsAgainBehind() throws Exception {
        ZooKeeperStore firstSession = session();
        ZooKeeperElection first = election(firstSession, FIRST);
        awaitCondition("the first to lead", first::isLeader);
        ZooKeeperElection second = election(session(), SECOND);
        assertThat(second.leader()).hasValue(FIRST);

        expire(firstSession);

        awaitCondition("the second to lead", second::isLeader);
        awaitCondition("the first to see the second lead", () -> leaderSeenBy(first).equals(Optional.of(SECOND)));
        assertThat(first.isLeader()).isFalse();
    }

    /** Ends a session as the ensemble does at its timeout: a second client on the same session closes it. */
    private void expire(ZooKeeperStore session) throws Exception {
        ZooKeeper client = session.curator().getZookeeperClient().getZooKeeper();
        ZooKeeper twin = new ZooKeeper(server.connectString(), Math.toIntExact(SESSION_TIMEOUT.toMillis()), event -> {},
                client.getSessionId(), client.getSessionPasswd());
        twin.close(Math.toIntExact(SESSION_TIMEOUT.toMillis()));
    }

    /** Empty while ZooKeeper cannot say (the session reconnecting). */
    private static Optional<String> leaderSeenBy(ZooKeeperElection election) {
        try {
            return election.leader();
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    private ZooKeeperStore session() {
        ZooKeeperStore zk = ZooKeeperStore.connect(server.connectString(), SESSION_TIMEOUT, metrics.zooKeeper());
        resources.push(zk);
        return zk;
    }

    private ZooKeeperElection election(ZooKeeperStore zk, String id) {
        ZooKeeperElection election = new ZooKeeperElection(zk, layout, id);
        resources.push(election);
        return election;
    }

    private static void awaitCondition(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("waited " + DEADLINE.toSeconds() + " s for " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }
}
