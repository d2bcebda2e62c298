package io.heliotrope.storage.server;

import io.heliotrope.proto.storage.v1.ImageInfo;
import io.heliotrope.proto.storage.v1.PeerTraffic;
import io.heliotrope.proto.storage.v1.PullState;
import io.heliotrope.proto.storage.v1.SiteImageStatus;
import io.heliotrope.proto.storage.v1.SiteStatus;
import io.heliotrope.proto.storage.v1.StaleBlocks;
import io.heliotrope.proto.storage.v1.SyncState;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.admin.ImageManager.ImageStatus;
import io.heliotrope.storage.image.mode.SyncStatus;
import io.heliotrope.storage.pull.PullStatus;
import io.heliotrope.storage.status.SiteState;

import java.util.TreeSet;

/** Conversions between the image domain and its protos. */
final class ImageProtos {
    private ImageProtos() {}

    /** @param nbdPort the port of this site's NBD server */
    static ImageInfo toProto(ImageStatus status, int nbdPort) {
        return ImageInfo.newBuilder()
                .setName(status.info().name())
                .setSizeBytes(status.info().sizeBytes())
                .setBlockSize(BlockStore.BLOCK_SIZE)
                .setCreatedEpochMillis(status.info().created().toEpochMilli())
                .setAllocatedBlocks(status.usage().dataBlocks())
                .setZeroBlocks(status.usage().zeroBlocks())
                .setViewMetaSeq(status.viewMetaSeq())
                .addAllStaleBlocks(status.staleByHolder().entrySet().stream()
                        .map(stale -> StaleBlocks.newBuilder().setHolder(stale.getKey()).setBlocks(stale.getValue()).build())
                        .toList())
                .setNbdPort(nbdPort)
                .build();
    }

    static SiteStatus toProto(SiteState state) {
        SiteStatus.Builder status = SiteStatus.newBuilder().setSite(state.site()).setStartedEpochMillis(state.started().toEpochMilli());
        for (SiteState.Image image : state.images()) {
            SiteImageStatus.Builder site = SiteImageStatus.newBuilder()
                    .setName(image.name())
                    .setUuid(image.identity() == null ? "" : image.identity().toString())
                    .setAllocatedBlocks(image.dataBlocks())
                    .setZeroBlocks(image.zeroBlocks())
                    .setConnections(image.connections())
                    .setDirtyBlocks(image.dirtyBlocks())
                    .setQueuedBlocks(image.backlog().blocks())
                    .setOldestQueuedMillis(image.backlog().oldest().toMillis())
                    .setPushedBytes(image.traffic().pushed())
                    .setFetchedBytes(image.traffic().fetched());
            if (image.pull() != null) {
                PullStatus pull = image.pull();
                site.setElsewhereBlocks(pull.elsewhereBlocks())
                        .setPullState(toProto(pull.state()))
                        .setLackedBlocks(pull.lackedBlocks())
                        .setPulledBytes(pull.pulledBytes())
                        .setPullBytesPerSecond(pull.bytesPerSecond());
            }
            if (image.sync() != null) {
                SyncStatus sync = image.sync();
                site.setSyncState(sync.degraded() ? SyncState.SYNC_STATE_DEGRADED : SyncState.SYNC_STATE_HEALTHY)
                        .addAllSyncSites(sync.sites())
                        .addAllSyncDownSites(new TreeSet<>(sync.down().keySet()))
                        .setSyncMissedBlocks(sync.missedBlocks());
            }
            status.addImages(site);
        }
        state.peers().forEach((peer, bytes) -> status.addPeers(PeerTraffic.newBuilder().setPeer(peer).setPushedBytes(bytes.pushed()).setFetchedBytes(bytes.fetched())));
        return status.build();
    }

    private static PullState toProto(PullStatus.State state) {
        return switch (state) {
            case OFF -> PullState.PULL_STATE_OFF;
            case WAITING -> PullState.PULL_STATE_WAITING;
            case RUNNING -> PullState.PULL_STATE_RUNNING;
            case DONE -> PullState.PULL_STATE_DONE;
            case STOPPED -> PullState.PULL_STATE_STOPPED;
        };
    }
}
