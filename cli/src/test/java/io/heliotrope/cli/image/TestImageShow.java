package io.heliotrope.cli.image;

import io.heliotrope.proto.controller.v1.ClusterImage;
import io.heliotrope.proto.controller.v1.ClusterStatus;
import io.heliotrope.proto.controller.v1.ImageConfig;
import io.heliotrope.proto.controller.v1.ImageStatus;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.PropagationMode;
import io.heliotrope.proto.controller.v1.PullMode;
import io.heliotrope.proto.controller.v1.Site;
import io.heliotrope.proto.controller.v1.SiteBlocks;
import io.heliotrope.proto.controller.v1.SiteHealth;
import io.heliotrope.proto.controller.v1.SiteImageState;
import io.heliotrope.proto.controller.v1.TransitionCount;
import io.heliotrope.proto.storage.v1.PullState;
import io.heliotrope.proto.storage.v1.SiteImageStatus;
import io.heliotrope.proto.storage.v1.SiteStatus;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

class TestImageShow {
    @Test
    void printsTheSettingsTheTablesAndWhatEachSiteHas() {
        ImageStatus status = ImageStatus.newBuilder()
                .setConfig(ImageConfig.newBuilder().setName("vm").setSizeBytes(1 << 20).setBlockSize(4096).setMode(PropagationMode.PROPAGATION_MODE_SYNC)
                        .setPulls(true).setKFactor(1000).setSRatio(0.5).setHome("virginia").setSyncCopies(2).setBandwidthBytesPerSecond(100L << 20)
                        .setTransitionHint(Transitions.parse("virginia:taiwan=1"))
                        .addObservedMoves(TransitionCount.newBuilder().setFromSite("taiwan").setToSite("virginia").setMoves(3))
                        .setTransitions(Transitions.parse("virginia:taiwan=1,taiwan:virginia=1,ohio:virginia=0.5,ohio:taiwan=0.5"))
                        .addDefaultRows("ohio"))
                .setLease(Lease.newBuilder().setEpoch(4))
                .addCurrentBlocks(SiteBlocks.newBuilder().setSite("virginia").setBlocks(256))
                .addCurrentBlocks(SiteBlocks.newBuilder().setSite("oregon").setBlocks(2))
                .setZeroBlocks(3)
                .build();
        ClusterStatus cluster = ClusterStatus.newBuilder()
                .addSites(SiteHealth.newBuilder().setSite(Site.newBuilder().setName("virginia")).setUp(true)
                        .setStatus(SiteStatus.newBuilder().setSite("virginia")))
                .addSites(SiteHealth.newBuilder().setSite(Site.newBuilder().setName("taiwan")))
                .addSites(SiteHealth.newBuilder().setSite(Site.newBuilder().setName("ohio")).setUp(true))
                .addSites(SiteHealth.newBuilder().setSite(Site.newBuilder().setName("chile")).setUp(true)
                        .setStatus(SiteStatus.newBuilder().setSite("chile")))
                .addSites(SiteHealth.newBuilder().setSite(Site.newBuilder().setName("peru")).setUp(true)
                        .setStatus(SiteStatus.newBuilder().setSite("peru")))
                .addImages(ClusterImage.newBuilder().setStatus(status)
                        .addSites(SiteImageState.newBuilder().setSite("virginia").setImage(SiteImageStatus.newBuilder()
                                .setAllocatedBlocks(300).setDirtyBlocks(7).setQueuedBlocks(40).setOldestQueuedMillis(1500).setConnections(2)
                                .setElsewhereBlocks(12).setPullState(PullState.PULL_STATE_RUNNING).setPullBytesPerSecond(88_300_000)))
                        .addSites(SiteImageState.newBuilder().setSite("chile").setImage(SiteImageStatus.newBuilder()
                                .setAllocatedBlocks(256).setPullState(PullState.PULL_STATE_DONE)))
                        .addSites(SiteImageState.newBuilder().setSite("peru").setImage(SiteImageStatus.newBuilder().setAllocatedBlocks(1))))
                .build();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        ImageShow.print(cluster, new PrintStream(bytes, true, UTF_8));

        assertThat(bytes.toString(UTF_8)).contains(String.join("\n",
                "mode:        sync (K 1000, S 0.5)",
                "pull:        on (default of sync)",
                "home:        virginia",
                "sync copies: 2 (min 3: every copy, the default)",
                "bandwidth:   100.0 MiB/s",
                "budget:      none",
                "lease:       none (last epoch 4)"), String.join("\n",
                "transition hint:",
                "  FROM\\TO   virginia    taiwan",
                "  virginia     0.000     1.000",
                "  taiwan           -         -",
                "observed lease moves:",
                "  taiwan -> virginia: 3",
                "transitions in use (a hint row weighs as much as 10 observed moves; a site with neither has the fleet's default row):",
                "  FROM\\TO   virginia    taiwan      ohio",
                "  virginia     0.000     1.000     0.000",
                "  taiwan       1.000     0.000     0.000",
                "  ohio         0.500     0.500     0.000  (default)",
                "sites, in blocks of 4.0 KiB:",
                "  SITE                     CURRENT  ALLOCATED  DIRTY  QUEUED    LAG  CONNECTIONS  ELSEWHERE  PULL",
                "  chile                          0    1.0 MiB      0       0      -            0          0  done",
                "  ohio                           0          -      -       -      -            -          -  -",
                "  oregon (not registered)        2          -      -       -      -            -          -  -",
                "  peru                           0    4.0 KiB      0       0      -            0          -  -",
                "  taiwan (down)                  0          -      -       -      -            -          -  -",
                "  virginia                     256    1.2 MiB      7      40  1.5 s            2         12  running 84.2 MiB/s",
                "  (current: the block's latest version is there; dirty: written there, not yet flushed to the controller;",
                "  queued: waiting there to be pushed to other sites, lag: how long the oldest has waited;",
                "  elsewhere: where it is open for writing, blocks whose latest version is only at other sites;",
                "  pull: what the background pull there does about them)",
                "  blocks whose latest version is zero: 3\n"));
    }

    @Test
    void aPullSetOnOrOffIsPrintedWithoutTheDefault() {
        ImageConfig onDemand = ImageConfig.newBuilder().setMode(PropagationMode.PROPAGATION_MODE_ON_DEMAND).build();

        assertThat(replication(onDemand)).contains("pull:        off (default of on-demand)\n");
        assertThat(replication(onDemand.toBuilder().setPull(PullMode.PULL_MODE_ON).setPulls(true).build())).contains("pull:        on\n");
        assertThat(replication(onDemand.toBuilder().setMode(PropagationMode.PROPAGATION_MODE_PROACTIVE).setPull(PullMode.PULL_MODE_OFF).build()))
                .contains("pull:        off\n");
    }

    private static String replication(ImageConfig image) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ImageShow.replication(image, new PrintStream(bytes, true, UTF_8));
        return bytes.toString(UTF_8);
    }
}
