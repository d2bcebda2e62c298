package io.heliotrope.controller.http;

import io.heliotrope.controller.app.ApplicationsStatus;
import io.heliotrope.controller.cluster.VmsStatus;
import io.heliotrope.proto.controller.v1.ClusterImage;
import io.heliotrope.proto.controller.v1.ClusterStatus;
import io.heliotrope.proto.controller.v1.ImageConfig;
import io.heliotrope.proto.controller.v1.ImageLocality;
import io.heliotrope.proto.controller.v1.ImageStatus;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.PeerRtt;
import io.heliotrope.proto.controller.v1.PropagationMode;
import io.heliotrope.proto.controller.v1.RttMatrix;
import io.heliotrope.proto.controller.v1.RttRow;
import io.heliotrope.proto.controller.v1.Site;
import io.heliotrope.proto.controller.v1.SiteBlocks;
import io.heliotrope.proto.controller.v1.SiteHealth;
import io.heliotrope.proto.controller.v1.SiteImageState;
import io.heliotrope.proto.storage.v1.PeerTraffic;
import io.heliotrope.proto.storage.v1.PullState;
import io.heliotrope.proto.storage.v1.SiteImageStatus;
import io.heliotrope.proto.storage.v1.SiteStatus;

import java.util.List;

/**
 * What the status port of a two-site cluster answers: virginia up and holding the lease of
 * {@code demo}, taiwan down, 75 ms between them.
 */
final class SampleCluster {
    static final String VIRGINIA = "virginia";
    static final String TAIWAN = "taiwan";
    static final String DEMO = "demo";
    static final long LAST_SEEN = System.currentTimeMillis();

    private SampleCluster() {}

    /** {@code demo} leased to {@code holder} at {@code epoch}; virginia pushed {@code pushed} bytes to taiwan. */
    static ClusterStatus status(String holder, long epoch, long pushed) {
        return status(holder, epoch, "", pushed);
    }

    /** As {@link #status(String, long, long)}, with the lease about to move to {@code movingTo}. */
    static ClusterStatus status(String holder, long epoch, String movingTo, long pushed) {
        return ClusterStatus.newBuilder()
                .addSites(SiteHealth.newBuilder()
                        .setSite(site(VIRGINIA, 7410, 10809))
                        .setUp(true)
                        .setLastSeenEpochMillis(LAST_SEEN)
                        .setStatus(SiteStatus.newBuilder().setSite(VIRGINIA)
                                .addPeers(PeerTraffic.newBuilder().setPeer(TAIWAN).setPushedBytes(pushed).setFetchedBytes(4096))))
                .addSites(SiteHealth.newBuilder()
                        .setSite(site(TAIWAN, 7411, 10810))
                        .setUp(false)
                        .setError("cannot reach 127.0.0.1:7411 (Connection refused)"))
                .setRtt(RttMatrix.newBuilder()
                        .addRows(rtt(VIRGINIA, TAIWAN, 75_200))
                        .addRows(rtt(TAIWAN, VIRGINIA, 74_800)))
                .addImages(ClusterImage.newBuilder()
                        .setStatus(ImageStatus.newBuilder()
                                .setConfig(ImageConfig.newBuilder().setName(DEMO).setSizeBytes(64 << 20).setBlockSize(4096)
                                        .setMode(PropagationMode.PROPAGATION_MODE_PROACTIVE).setHome(VIRGINIA))
                                .setLease(Lease.newBuilder().setImage(DEMO).setHolder(holder).setEpoch(epoch).setMovingTo(movingTo))
                                .setMetaSeq(12)
                                .addCurrentBlocks(SiteBlocks.newBuilder().setSite(VIRGINIA).setBlocks(256)))
                        .addSites(SiteImageState.newBuilder().setSite(VIRGINIA).setImage(SiteImageStatus.newBuilder()
                                .setName(DEMO).setAllocatedBlocks(256).setQueuedBlocks(40).setOldestQueuedMillis(2500).setPushedBytes(pushed)
                                .setElsewhereBlocks(12).setPullState(PullState.PULL_STATE_RUNNING).setPullBytesPerSecond(88_300_000))))
                .build();
    }

    /** Eight regions of {@code demo}: virginia holds the first two, taiwan the fourth, the rest are zeros. */
    static ImageLocality locality() {
        return ImageLocality.newBuilder()
                .setImage(DEMO)
                .setMetaSeq(12)
                .setRegionBytes(8 << 20)
                .addAllSites(List.of(VIRGINIA, TAIWAN))
                .addAllHolders(List.of(1, 1, 0, 2, 0, 0, 0, 0))
                .addAllShares(List.of(1f, 0.5f, 0f, 1f, 0f, 0f, 0f, 0f))
                .build();
    }

    /**
     * Two VMs: {@code web} running at virginia on {@code demo}, migrating to taiwan with 3/4 of
     * its RAM sent (its driver's last report {@code reportedAgoMillis} ago), and {@code db} at
     * taiwan, which does not answer; two migrations of {@code web} done, the newest rolled back.
     */
    static VmsStatus vms(long reportedAgoMillis) {
        long now = System.currentTimeMillis();
        VmsStatus.Disk demo = new VmsStatus.Disk(DEMO, VIRGINIA, 3, TAIWAN, "");
        return new VmsStatus(now,
                List.of(new VmsStatus.VmState("db", TAIWAN, "unknown (site unreachable)", "", 512 << 20, 1, List.of(),
                                List.of(new VmsStatus.Disk("gone", "", 0, "", "image 'gone' does not exist"))),
                        new VmsStatus.VmState("web", VIRGINIA, "running", "", 256 << 20, 2,
                                List.of(new VmsStatus.Runtime(TAIWAN, "inmigrate", "", true, "active"),
                                        new VmsStatus.Runtime(VIRGINIA, "running", "", false, "active")),
                                List.of(demo))),
                List.of(new VmsStatus.InFlight("web", "m3", VIRGINIA, TAIWAN, "precopy", now - 12_000, now - reportedAgoMillis, 12_000,
                        256 << 20, 64 << 20, 75, 1 << 20, "operator", "e1", reportedAgoMillis > 60_000)),
                List.of(done("m2", now - 60_000, "rolled_back", "the destination died", 0),
                        done("m1", now - 120_000, "completed", "", 170_000)));
    }

    /**
     * Two applications: {@code zk}, an ensemble at virginia whose newest decision moved it to
     * taiwan (zk3 not defined as a VM), and {@code web}, whose policy failed twice in a row
     * {@code lastAgoMillis} ago; three decisions in all.
     */
    static ApplicationsStatus applications(long lastAgoMillis) {
        long now = System.currentTimeMillis();
        ApplicationsStatus.DecisionState stay = new ApplicationsStatus.DecisionState("zk", "stay", "nothing clears the threshold",
                now - 300_000, now - 240_000, 2, -1500, -1500, List.of(), false);
        ApplicationsStatus.DecisionState move = new ApplicationsStatus.DecisionState("zk", "move", "a better plan", now - 60_000, now - 60_000, 1,
                -1500, -420.5, List.of(new ApplicationsStatus.Move("zk1", VIRGINIA, TAIWAN), new ApplicationsStatus.Move("zk2", VIRGINIA, TAIWAN)),
                false);
        ApplicationsStatus.DecisionState error = new ApplicationsStatus.DecisionState("web", "error", "the policy threw: no front ends",
                now - lastAgoMillis - 60_000, now - lastAgoMillis, 2, Double.NEGATIVE_INFINITY, Double.NEGATIVE_INFINITY, List.of(), false);
        return new ApplicationsStatus(now,
                List.of(new ApplicationsStatus.ApplicationState("web", "single-vm", List.of(new ApplicationsStatus.VmSite("web", VIRGINIA)), "", 1,
                                error),
                        new ApplicationsStatus.ApplicationState("zk", "ensemble", List.of(new ApplicationsStatus.VmSite("zk1", TAIWAN),
                                new ApplicationsStatus.VmSite("zk2", TAIWAN), new ApplicationsStatus.VmSite("zk3", "")), "zk1", 2, move)),
                List.of(error, move, stay));
    }

    private static VmsStatus.Done done(String id, long ended, String outcome, String reason, long downtimeMicros) {
        return new VmsStatus.Done("web", id, ended - 1_000, ended, VIRGINIA, TAIWAN, outcome, reason, 1_000_000, downtimeMicros, 30_000,
                300 << 20, 1 << 20, 4096, "scheduler:d-17", "");
    }

    private static Site site(String name, int grpcPort, int nbdPort) {
        return Site.newBuilder().setName(name).setGrpcAddress("127.0.0.1:" + grpcPort).setNbdAddress("127.0.0.1:" + nbdPort).build();
    }

    private static RttRow rtt(String from, String to, long micros) {
        return RttRow.newBuilder().setSite(from).addPeers(PeerRtt.newBuilder().setPeer(to).setRttMicros(micros)).build();
    }
}
