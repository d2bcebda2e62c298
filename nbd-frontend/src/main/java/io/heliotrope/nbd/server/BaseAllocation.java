package io.heliotrope.nbd.server;

import io.heliotrope.nbd.BlockDescriptor;
import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.nbd.Extent;
import io.heliotrope.nbd.MetaContext;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.heliotrope.nbd.protocol.NbdConstants.STATE_HOLE;
import static io.heliotrope.nbd.protocol.NbdConstants.STATE_ZERO;

/** The protocol's {@code base:allocation} context: holes and zeros, from {@link BlockDevice#blockStatus}. */
public final class BaseAllocation implements MetaContext {
    public static final String NAME = "base:allocation";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CompletableFuture<List<BlockDescriptor>> blockStatus(BlockDevice device, long offset, long length) {
        return device.blockStatus(offset, length).thenApply(extents -> extents.stream()
                .map(extent -> new BlockDescriptor(extent.length(), flags(extent)))
                .toList());
    }

    private static int flags(Extent extent) {
        return (extent.hole() ? STATE_HOLE : 0) | (extent.zero() ? STATE_ZERO : 0);
    }
}
