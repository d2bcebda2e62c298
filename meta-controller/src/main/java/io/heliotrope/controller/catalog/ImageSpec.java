package io.heliotrope.controller.catalog;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.image.ImageNames;

import java.util.UUID;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

/**
 * What a caller asks to create. Replication settings it leaves unset take the defaults
 * (DESIGN.md section 6): proactive, K = 1000, S = 1, 1 sync copy, no cap, no budget, no
 * table, the pull as the mode has it, and as home the first site that opens the image for writing.
 */
public record ImageSpec(String name, long sizeBytes, ReplicationUpdate replication) {
    /** Large enough for any disk we expect, small enough that byte offsets never overflow. */
    public static final long MAX_SIZE = 1L << 50;

    public ImageSpec {
        ImageNames.check(name);
        if (sizeBytes <= 0 || sizeBytes % ImageConfig.BLOCK_SIZE != 0 || sizeBytes > MAX_SIZE) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "invalid size " + Long.toUnsignedString(sizeBytes)
                    + " for image '" + name + "': must be a positive multiple of " + ImageConfig.BLOCK_SIZE + " bytes, at most 1 PiB");
        }
        replication = requireNonNullElse(replication, ReplicationUpdate.NONE);
    }

    public ImageSpec(String name, long sizeBytes) {
        this(name, sizeBytes, null);
    }

    public ImageConfig toConfig(long createdEpochMillis, UUID uuid) {
        return new ImageConfig(name, sizeBytes, ImageConfig.BLOCK_SIZE, createdEpochMillis, PropagationMode.PROACTIVE,
                ImageConfig.DEFAULT_K, ImageConfig.DEFAULT_S, TransitionTable.EMPTY, requireNonNull(uuid, "uuid is null"),
                "", ImageConfig.DEFAULT_SYNC_COPIES, 0, 0, PullMode.UNSPECIFIED, 0).with(replication);
    }
}
