package io.heliotrope.nbd;

/** A run of bytes with one status in a metadata context: the context's flags, as BLOCK_STATUS sends them. */
public record BlockDescriptor(long length, int flags) {
    public BlockDescriptor {
        if (length <= 0) {
            throw new IllegalArgumentException("length must be positive: " + length);
        }
    }

    public BlockDescriptor withLength(long newLength) {
        return new BlockDescriptor(newLength, flags);
    }
}
