package io.heliotrope.storage.view;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * What an image's replication mode does beside this site's store (DESIGN.md section 6),
 * for one open image: it hears of every read and write its {@link DataView} serves, and
 * decides when a write may be acknowledged. Calls come on the I/O path: keep them cheap,
 * and never block.
 */
public interface Replicator extends AutoCloseable {
    /** A mode that does nothing beside the store: a write is acknowledged once stored here. */
    Replicator NONE = new Replicator() {};

    /** Blocks [first, first + count) were read here. */
    default void read(long first, long count) {}

    /**
     * Blocks [first, first + count) were stored here with {@code version}: their data, from
     * its position, or null for zero markers. Completes when the write may be acknowledged;
     * {@code data} stays as it is until then.
     */
    default CompletableFuture<Void> wrote(long first, long count, long version, ByteBuffer data) {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * A FLUSH: completes once every write acknowledged before it is durable here. {@code storeSync}
     * syncs the whole store, which is what a mode with nothing of its own to add does.
     */
    default CompletableFuture<Void> flush(Supplier<CompletableFuture<Void>> storeSync) {
        return storeSync.get();
    }

    /** The image closes here, after its session's final flush: nothing more is read or written. */
    @Override
    default void close() {}
}
