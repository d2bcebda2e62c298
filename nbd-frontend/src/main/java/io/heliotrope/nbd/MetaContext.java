package io.heliotrope.nbd;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A metadata context: what BLOCK_STATUS reports about the ranges of an export once a
 * client has selected the context by name with {@code NBD_OPT_SET_META_CONTEXT}. The
 * server offers the contexts it is given, in that order, and handles their listing,
 * selection and ids; a context only answers for a range.
 */
public interface MetaContext {
    /** {@code namespace:leaf}, as clients query and select it, e.g. {@code base:allocation}. */
    String name();

    /**
     * The status of {@code [offset, offset + length)} of a device, as consecutive
     * descriptors from {@code offset}; they may cover less than {@code length}, never more
     * than the export. Called on an event loop, after the request was validated: must not block.
     */
    CompletableFuture<List<BlockDescriptor>> blockStatus(BlockDevice device, long offset, long length);
}
