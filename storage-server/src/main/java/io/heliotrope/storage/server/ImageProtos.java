package io.heliotrope.storage.server;

import io.heliotrope.proto.storage.v1.ImageInfo;
import io.heliotrope.proto.storage.v1.StaleBlocks;
import io.heliotrope.storage.BlockStore;
import io.heliotrope.storage.admin.ImageManager.ImageStatus;

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
}
