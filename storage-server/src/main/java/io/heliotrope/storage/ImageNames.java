package io.heliotrope.storage;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.util.stream.LongStream;

/** Rules every store applies to image sizes and block numbers, and its errors for names, so they fail alike (the name rule: {@link io.heliotrope.image.ImageNames}). */
public final class ImageNames {
    /** Large enough for any disk we expect, small enough that byte offsets never overflow. */
    public static final long MAX_SIZE = 1L << 50;

    private ImageNames() {}

    public static long checkSize(long sizeBytes) {
        if (sizeBytes <= 0 || sizeBytes % BlockStore.BLOCK_SIZE != 0 || sizeBytes > MAX_SIZE) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT,
                    "invalid image size " + sizeBytes + ": must be a positive multiple of " + BlockStore.BLOCK_SIZE + " bytes, at most 1 PiB");
        }
        return sizeBytes;
    }

    /**
     * Fails unless every block is one of the image's {@code blockCount}: copies come from
     * other sites, and one beyond the end would leave an entry no resize or delete removes.
     */
    public static void checkBlocks(long imageId, long blockCount, LongStream blocks) {
        blocks.filter(block -> block < 0 || block >= blockCount).findFirst().ifPresent(block -> {
            throw new HeliotropeException(ErrorCode.OUT_OF_RANGE, "image " + imageId + " has no block " + block + ": it has " + blockCount + " blocks");
        });
    }

    public static HeliotropeException notFound(String name) {
        return new HeliotropeException(ErrorCode.IMAGE_NOT_FOUND, "image '" + name + "' does not exist");
    }

    public static HeliotropeException exists(String name) {
        return new HeliotropeException(ErrorCode.IMAGE_EXISTS, "image '" + name + "' already exists");
    }
}
