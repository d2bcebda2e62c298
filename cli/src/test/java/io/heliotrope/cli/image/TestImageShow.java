package io.heliotrope.cli.image;

import io.heliotrope.proto.controller.v1.ClusterImage;
import io.heliotrope.proto.controller.v1.ClusterStatus;
import io.heliotrope.proto.controller.v1.ImageConfig;
import io.heliotrope.proto.controller.v1.ImageStatus;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.PropagationMode;
import io.heliotrope.proto.controller.v1.Site;
import io.heliotrope.proto.controller.v1.SiteBlocks;
import io.heliotrope.proto.controller.v1.SiteHealth;
import io.heliotrope.proto.controller.v1.SiteImageState;
import io.heliotrope.proto.controller.v1.TransitionCount;
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
                        .setKFactor(1000).setSRatio(0.5).setHome("virginia").setSyncCopies(2).setBandwidthBytesPerSecond(100L << 20)
                        .setTransitionHint(Transitions.parse("virginia:taiwan=1"))
                        .addObservedMoves(TransitionCount.newBuilder().setFromSite("taiwan").setToSite("virginia").setMoves(3))
                        .setTransitions(Transitions.parse("virginia:taiwan=1,taiwan:virginia=1")))
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
                .addImages(ClusterImage.newBuilder().setStatus(status)
                        .addSites(SiteImageState.newBuilder().setSite("virginia").setImage(SiteImageStatus.newBuilder()
                                .setAllocatedBlocks(300).setDirtyBlocks(7).setQueuedBlocks(40).setOldestQueuedMillis(1500).setConnections(2))))
                .build();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        ImageShow.print(cluster, new PrintStream(bytes, true, UTF_8));

        assertThat(bytes.toString(UTF_8)).contains(String.join("\n",
                "mode:        sync (K 1000, S 0.5)",
                "home:        virginia",
                "sync copies: 2",
                "bandwidth:   100.0 MiB/s",
                "budget:      none",
                "lease:       none (last epoch 4)"), String.join("\n",
                "transition hint:",
                "  FROM\\TO   virginia    taiwan",
                "  virginia     0.000     1.000",
                "  taiwan           -         -",
                "observed lease moves:",
                "  taiwan -> virginia: 3",
                "transitions in use (a hint row weighs as much as 10 observed moves):",
                "  FROM\\TO   virginia    taiwan",
                "  virginia     0.000     1.000",
                "  taiwan       1.000     0.000",
                "sites, in blocks of 4.0 KiB:",
                "  SITE                     CURRENT  ALLOCATED  DIRTY  QUEUED    LAG  CONNECTIONS",
                "  ohio                           0          -      -       -      -            -",
                "  oregon (not registered)        2          -      -       -      -            -",
                "  taiwan (down)                  0          -      -       -      -            -",
                "  virginia                     256    1.2 MiB      7      40  1.5 s            2",
                "  (current: the block's latest version is there; dirty: written there, not yet flushed to the controller;",
                "  queued: waiting there to be pushed to other sites, lag: how long the oldest has waited)",
                "  blocks whose latest version is zero: 3\n"));
    }
}
