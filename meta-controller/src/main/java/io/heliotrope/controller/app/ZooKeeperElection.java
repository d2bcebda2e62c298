package io.heliotrope.controller.app;

import io.heliotrope.controller.zookeeper.ZooKeeperLayout;
import io.heliotrope.controller.zookeeper.ZooKeeperStore;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.scheduler.decision.Election;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.Participant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The schedulers' election: a Curator {@link LeaderLatch} at {@code ROOT/scheduler/leader} on
 * the controller's ZooKeeper session, each participant known by its id (its controller's gRPC
 * address). Leadership ends when the session is suspended (the connection lost: another may
 * lead once the session expires) or lost, and when this election is closed; after a lost
 * session the latch joins again with the new one, behind whoever leads by then.
 */
public final class ZooKeeperElection implements Election {
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperElection.class);

    private final String id;
    private final LeaderLatch latch;

    /** Joins the election now; {@code zk} must outlive it. */
    public ZooKeeperElection(ZooKeeperStore zk, ZooKeeperLayout layout, String id) {
        this.id = requireNonNull(id, "id is null");
        if (id.isEmpty()) {
            throw new IllegalArgumentException("a scheduler's id must not be empty");
        }
        zk.ensurePath(layout.schedulerLeader());
        latch = new LeaderLatch(zk.curator(), layout.schedulerLeader(), id);
        latch.addListener(new LeaderLatchListener() {
            @Override
            public void isLeader() {
                log.info("scheduler {}: elected, decides from now on", id);
            }

            @Override
            public void notLeader() {
                log.info("scheduler {}: no longer leads", id);
            }
        });
        try {
            latch.start();
        } catch (Exception e) {
            throw new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "scheduler " + id + " cannot join the election: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean isLeader() {
        return latch.hasLeadership();
    }

    /** The leader's id; fails with {@code PEER_UNAVAILABLE} when ZooKeeper cannot tell. */
    @Override
    public Optional<String> leader() {
        if (latch.hasLeadership()) {
            return Optional.of(id);
        }
        Participant leader;
        try {
            leader = latch.getLeader();
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "scheduler " + id + " cannot read the election: " + e.getMessage(), e);
        }
        return leader.isLeader() && !leader.getId().isEmpty() ? Optional.of(leader.getId()) : Optional.empty();
    }

    /** Leaves the election, handing leadership over when it held it; a second close does nothing. */
    @Override
    public synchronized void close() {
        if (latch.getState() != LeaderLatch.State.STARTED) {
            return;
        }
        try {
            latch.close();
        } catch (IOException e) {
            log.warn("scheduler {}: leaving the election failed; the session's end removes it", id, e);
        }
    }
}
