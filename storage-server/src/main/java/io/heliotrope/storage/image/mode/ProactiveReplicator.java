package io.heliotrope.storage.image.mode;

import io.heliotrope.storage.propagation.ImagePropagation;
import io.heliotrope.storage.view.Replicator;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

import static java.util.Objects.requireNonNull;

/**
 * The {@code proactive} mode (DESIGN.md section 6): every read and write counts towards
 * its blocks' priorities, and written blocks join the queue the propagation manager pushes
 * from in the background, until that queue is empty after the close. A write is
 * acknowledged once stored here.
 */
final class ProactiveReplicator implements Replicator {
    private final ImagePropagation propagation;
    private final Runnable onClose;

    ProactiveReplicator(ImagePropagation propagation, Runnable onClose) {
        this.propagation = requireNonNull(propagation, "propagation is null");
        this.onClose = requireNonNull(onClose, "onClose is null");
    }

    @Override
    public void read(long first, long count) {
        propagation.recordRead(first, count);
    }

    /** Called once the blocks are in the store, so that the pusher reads this version or a newer one. */
    @Override
    public CompletableFuture<Void> wrote(long first, long count, long version, ByteBuffer data) {
        propagation.recordWrite(first, count);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public void close() {
        onClose.run();
        propagation.close();
    }
}
