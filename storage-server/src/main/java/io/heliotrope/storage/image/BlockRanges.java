package io.heliotrope.storage.image;

import io.heliotrope.nbd.BlockDescriptor;
import io.heliotrope.nbd.Extent;

import java.util.ArrayList;
import java.util.List;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;

/** The byte ranges of NBD requests as the whole blocks they cover, and runs of blocks back as descriptors of a byte range. */
public final class BlockRanges {
    private BlockRanges() {}

    /** Blocks [firstBlock, firstBlock + count) alike, as {@code flags} say. */
    public record Run(long firstBlock, long count, int flags) {}

    /** How many blocks [offset, offset + length) touches. */
    public static int blocksCovering(long offset, long length) {
        return (int) (ceilDiv(offset + length, BLOCK_SIZE) - offset / BLOCK_SIZE);
    }

    /** The first whole block at or after {@code offset}. */
    public static long firstWholeBlock(long offset) {
        return ceilDiv(offset, BLOCK_SIZE);
    }

    /** Runs of blocks in order as descriptors of [offset, offset + length), those with the same flags merged. */
    public static List<BlockDescriptor> descriptors(long offset, long length, List<Run> runs) {
        List<BlockDescriptor> descriptors = new ArrayList<>();
        long position = offset;
        for (Run run : runs) {
            long runEnd = Math.min((run.firstBlock() + run.count()) * BLOCK_SIZE, offset + length);
            long runLength = runEnd - position;
            int last = descriptors.size() - 1;
            if (last >= 0 && descriptors.get(last).flags() == run.flags()) {
                descriptors.set(last, new BlockDescriptor(descriptors.get(last).length() + runLength, run.flags()));
            } else {
                descriptors.add(new BlockDescriptor(runLength, run.flags()));
            }
            position = runEnd;
        }
        return descriptors;
    }

    /** The {@code base:allocation} extents of descriptors whose flags are 0 for data and anything else for a hole that reads as zeros. */
    public static List<Extent> allocation(List<BlockDescriptor> descriptors) {
        return descriptors.stream().map(d -> d.flags() == 0 ? Extent.data(d.length()) : Extent.zeroHole(d.length())).toList();
    }

    private static long ceilDiv(long value, long divisor) {
        return -Math.floorDiv(-value, divisor);
    }
}
