package io.heliotrope.storage.image;

import io.heliotrope.nbd.BlockDescriptor;
import io.heliotrope.nbd.BlockDevice;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/** A device of one of this site's images, which can tell where each block of a range is read from ({@link Locality}). */
public interface LocatedDevice extends BlockDevice {
    /** The {@link Locality} context of [offset, offset + length): descriptors whose flags are {@link Locality#HERE}, {@link Locality#ELSEWHERE} or {@link Locality#ZERO}. */
    CompletableFuture<List<BlockDescriptor>> locality(long offset, long length);
}
