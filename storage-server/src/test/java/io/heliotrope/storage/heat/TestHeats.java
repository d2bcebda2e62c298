package io.heliotrope.storage.heat;

import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.heat.HeatLog.Recorded;
import io.heliotrope.storage.peer.Peers.ImageRef;
import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.storage.view.Replicator;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

class TestHeats {
    private final HeatLog log = new HeatLog(Clock.systemUTC());
    private final List<String> calls = new ArrayList<>();
    private final CompletableFuture<Void> acknowledged = new CompletableFuture<>();
    private final Heats heats = new Heats(session -> new Replicator() {
        @Override
        public void read(long first, long count) {
            calls.add("read " + first + "+" + count);
        }

        @Override
        public CompletableFuture<Void> wrote(long first, long count, long version, ByteBuffer data) {
            calls.add((data == null ? "zeroed " : "wrote ") + first + "+" + count + "@" + version);
            return acknowledged;
        }

        @Override
        public void close() {
            calls.add("closed");
        }
    }, log);
    private final Session session = new Session(new ImageInfo(1, "disk", 64 * BLOCK_SIZE, Instant.EPOCH, UUID.randomUUID()));

    @Test
    void readsAndDataWritesAreCountedAndEveryCallReachesTheModeButZeroingsAreNotCounted() {
        Replicator replicator = heats.open(session);
        replicator.read(1, 2);
        assertThat(replicator.wrote(2, 2, 7, ByteBuffer.allocate(2 * BLOCK_SIZE))).isSameAs(acknowledged);
        replicator.wrote(10, 4, 8, null);

        assertThat(calls).containsExactly("read 1+2", "wrote 2+2@7", "zeroed 10+4@8");
        Recorded heat = heat();
        assertThat(heat.epoch()).isEqualTo(3);
        assertThat(heat.blocks()).containsExactly(2, 1, 3);
    }

    @Test
    void theCloseFreezesTheHeatAtTheEpochTheSessionHasThen() {
        Replicator replicator = heats.open(session);
        replicator.read(5, 1);
        session.epoch = 4;

        replicator.close();
        replicator.read(6, 1);

        assertThat(calls).containsExactly("read 5+1", "closed", "read 6+1");
        Recorded heat = heat();
        assertThat(heat.epoch()).isEqualTo(4);
        assertThat(heat.blocks()).containsExactly(5);
    }

    private Recorded heat() {
        return log.heat(ImageRef.of(session.info()), 100, 100);
    }

    /** A session of epoch 3 until a test moves it; nothing else is asked of it. */
    private static final class Session implements ImageSession {
        private final ImageInfo info;
        long epoch = 3;

        Session(ImageInfo info) {
            this.info = info;
        }

        @Override
        public ImageInfo info() {
            return info;
        }

        @Override
        public long epoch() {
            return epoch;
        }

        @Override
        public long nextEpoch() {
            throw new UnsupportedOperationException("nextEpoch");
        }

        @Override
        public void checkCurrent() {}

        @Override
        public SortedMap<Long, GlobalBlock> stale(long first, long count) {
            return Collections.emptySortedMap();
        }

        @Override
        public void wrote(long first, long count) {}

        @Override
        public void fetched(GlobalBlock block) {}

        @Override
        public void close() {}
    }
}
