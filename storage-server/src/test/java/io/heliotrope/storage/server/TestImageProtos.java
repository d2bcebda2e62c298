package io.heliotrope.storage.server;

import io.heliotrope.proto.storage.v1.PeerTraffic;
import io.heliotrope.proto.storage.v1.SiteImageStatus;
import io.heliotrope.proto.storage.v1.SiteStatus;
import io.heliotrope.storage.peer.PeerMetrics.BlockBytes;
import io.heliotrope.storage.propagation.PropagationManager.Backlog;
import io.heliotrope.storage.status.SiteState;
import io.heliotrope.proto.storage.v1.PullState;
import io.heliotrope.storage.pull.PullStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

class TestImageProtos {
    @Test
    void aSiteStateBecomesTheSiteStatusFieldByField() {
        UUID identity = UUID.fromString("0b4f3a5e-8c1d-4e2f-9a6b-7c8d9e0f1a2b");
        SiteState state = new SiteState("virginia", Instant.ofEpochMilli(1_764_000_000_123L), List.of(
                new SiteState.Image("demo", identity, 300, 20, 2, 17, new Backlog(40, Duration.ofMillis(2500)), new BlockBytes(8192, 4096),
                        new PullStatus("demo", PullStatus.State.RUNNING, 900, 1000, 409_600, 81_920), null),
                new SiteState.Image("local", null, 0, 0, 0, 0, Backlog.NONE, new BlockBytes(0, 0), null, null)),
                Map.of("taiwan", new BlockBytes(8192, 4096), "oregon", new BlockBytes(0, 4096)));

        assertThat(ImageProtos.toProto(state)).isEqualTo(SiteStatus.newBuilder()
                .setSite("virginia")
                .setStartedEpochMillis(1_764_000_000_123L)
                .addImages(SiteImageStatus.newBuilder().setName("demo").setUuid("0b4f3a5e-8c1d-4e2f-9a6b-7c8d9e0f1a2b").setAllocatedBlocks(300)
                        .setZeroBlocks(20).setConnections(2).setDirtyBlocks(17).setQueuedBlocks(40).setOldestQueuedMillis(2500)
                        .setPushedBytes(8192).setFetchedBytes(4096).setElsewhereBlocks(900).setPullState(PullState.PULL_STATE_RUNNING)
                        .setLackedBlocks(1000).setPulledBytes(409_600).setPullBytesPerSecond(81_920))
                .addImages(SiteImageStatus.newBuilder().setName("local"))
                .addPeers(PeerTraffic.newBuilder().setPeer("oregon").setFetchedBytes(4096))
                .addPeers(PeerTraffic.newBuilder().setPeer("taiwan").setPushedBytes(8192).setFetchedBytes(4096))
                .build());
    }
}
