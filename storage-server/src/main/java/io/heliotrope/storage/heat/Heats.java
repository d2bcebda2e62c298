package io.heliotrope.storage.heat;

import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.image.ReplicatorFactory;
import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.storage.view.Replicator;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * Counts the heat of every image open here, whatever its mode (DESIGN.md section 4): as a
 * {@link ReplicatorFactory} it decorates the site's, so that each read and each write of data
 * (not a zeroing) is counted in a {@link BlockHeat} the {@link HeatLog} answers from while the
 * session is open and keeps once it closes.
 */
public final class Heats implements ReplicatorFactory {
    private final ReplicatorFactory delegate;
    private final HeatLog log;

    /** @param delegate the site's replicators, which this decorates */
    public Heats(ReplicatorFactory delegate, HeatLog log) {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.log = requireNonNull(log, "log is null");
    }

    @Override
    public Replicator open(ImageSession session) {
        Replicator replicator = delegate.open(session);
        ImageInfo image = session.info();
        BlockHeat heat = log.open(image, session::epoch);
        return new Replicator() {
            @Override
            public void read(long first, long count) {
                heat.record(first, count);
                replicator.read(first, count);
            }

            @Override
            public CompletableFuture<Void> wrote(long first, long count, long version, ByteBuffer data) {
                if (data != null) {
                    heat.record(first, count);
                }
                return replicator.wrote(first, count, version, data);
            }

            @Override
            public CompletableFuture<Void> flush(Supplier<CompletableFuture<Void>> storeSync) {
                return replicator.flush(storeSync);
            }

            @Override
            public void close() {
                try {
                    replicator.close();
                } finally {
                    log.close(image, heat, session.epoch());
                }
            }
        };
    }
}
