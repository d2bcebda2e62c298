package io.heliotrope.storage;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

/** Rules every store applies to image sizes, and its errors for names, so they fail alike (the name rule: {@link io.heliotrope.image.ImageNames}). */
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

    public static HeliotropeException notFound(String name) {
        return new HeliotropeException(ErrorCode.IMAGE_NOT_FOUND, "image '" + name + "' does not exist");
    }

    public static HeliotropeException exists(String name) {
        return new HeliotropeException(ErrorCode.IMAGE_EXISTS, "image '" + name + "' already exists");
    }
}
