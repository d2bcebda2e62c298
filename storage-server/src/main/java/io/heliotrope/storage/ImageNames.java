package io.heliotrope.storage;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.util.regex.Pattern;

/** Rules every store applies to image names and sizes, so they fail alike. */
public final class ImageNames {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");
    /** Large enough for any disk we expect, small enough that byte offsets never overflow. */
    public static final long MAX_SIZE = 1L << 50;

    private ImageNames() {}

    public static String checkName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT,
                    "invalid image name '" + name + "': use 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit");
        }
        return name;
    }

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
