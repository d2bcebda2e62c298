package io.heliotrope.cli;

import io.heliotrope.proto.controller.v1.ImageConfig;
import io.heliotrope.proto.controller.v1.ImageStatus;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.PropagationMode;
import io.heliotrope.proto.controller.v1.SiteBlocks;
import io.heliotrope.proto.controller.v1.TransitionCount;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

class TestImageShow {
    @Test
    void printsTheSettingsTheTablesAndTheBlocksOfEachSite() {
        ImageStatus status = ImageStatus.newBuilder()
                .setConfig(ImageConfig.newBuilder().setName("vm").setSizeBytes(1 << 20).setMode(PropagationMode.PROPAGATION_MODE_SYNC)
                        .setKFactor(1000).setSRatio(0.5).setHome("virginia").setSyncCopies(2).setBandwidthBytesPerSecond(100L << 20)
                        .setTransitionHint(Transitions.parse("virginia:taiwan=1"))
                        .addObservedMoves(TransitionCount.newBuilder().setFromSite("taiwan").setToSite("virginia").setMoves(3))
                        .setTransitions(Transitions.parse("virginia:taiwan=1,taiwan:virginia=1")))
                .setLease(Lease.newBuilder().setEpoch(4))
                .addCurrentBlocks(SiteBlocks.newBuilder().setSite("virginia").setBlocks(256))
                .build();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        ImageShow.print(status, new PrintStream(bytes, true, UTF_8));

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
                "current blocks by site:",
                "  virginia             256",
                "  (zero)               0"));
    }
}
