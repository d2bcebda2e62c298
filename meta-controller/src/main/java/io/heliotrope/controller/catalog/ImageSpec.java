package io.heliotrope.controller.catalog;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.image.ImageNames;

import java.util.UUID;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

/**
 * What a caller asks to create. A null mode, a zero K or S and a null table take the
 * defaults (DESIGN.md section 6): proactive, K = 1000, S = 1, no table.
 */
public record ImageSpec(String name, long sizeBytes, PropagationMode mode, int k, int s, TransitionTable transitions) {
    /** Large enough for any disk we expect, small enough that byte offsets never overflow. */
    public static final long MAX_SIZE = 1L << 50;
    public static final int DEFAULT_K = 1000;
    public static final int DEFAULT_S = 1;

    public ImageSpec {
        ImageNames.check(name);
        if (sizeBytes <= 0 || sizeBytes % ImageConfig.BLOCK_SIZE != 0 || sizeBytes > MAX_SIZE) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "invalid size " + Long.toUnsignedString(sizeBytes)
                    + " for image '" + name + "': must be a positive multiple of " + ImageConfig.BLOCK_SIZE + " bytes, at most 1 PiB");
        }
        if (k < 0 || s < 0) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT,
                    "invalid propagation knobs for image '" + name + "': K = " + Integer.toUnsignedString(k) + ", S = " + Integer.toUnsignedString(s));
        }
        mode = requireNonNullElse(mode, PropagationMode.PROACTIVE);
        k = k == 0 ? DEFAULT_K : k;
        s = s == 0 ? DEFAULT_S : s;
        transitions = requireNonNullElse(transitions, TransitionTable.EMPTY);
    }

    public ImageSpec(String name, long sizeBytes) {
        this(name, sizeBytes, null, 0, 0, null);
    }

    public ImageConfig toConfig(long createdEpochMillis, UUID uuid) {
        return new ImageConfig(name, sizeBytes, ImageConfig.BLOCK_SIZE, createdEpochMillis, mode, k, s, transitions, requireNonNull(uuid, "uuid is null"));
    }
}
