package io.heliotrope.storage.heat;

import io.heliotrope.storage.heat.HeatLog.Recorded;
import io.heliotrope.storage.image.LocalSessions;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.storage.peer.Peers.ImageRef;
import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.storage.view.Replicator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
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
    private final MemoryBlockStore store = new MemoryBlockStore();
    private final ImageSession session;

    TestHeats() {
        store.createImage("disk", 64 * BLOCK_SIZE, UUID.randomUUID());
        session = new LocalSessions(store).open("disk");
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void readsAndDataWritesAreCountedAndEveryCallReachesTheModeButZeroingsAreNotCounted() {
        Replicator replicator = heats.open(session);
        replicator.read(1, 2);
        assertThat(replicator.wrote(2, 2, 7, ByteBuffer.allocate(2 * BLOCK_SIZE))).isSameAs(acknowledged);
        replicator.wrote(10, 4, 8, null);

        assertThat(calls).containsExactly("read 1+2", "wrote 2+2@7", "zeroed 10+4@8");
        Recorded heat = heat();
        assertThat(heat.epoch()).isEqualTo(session.epoch()).isPositive();
        // The blocks in the order first touched (they lead a session's heat: TestBlockHeat).
        assertThat(heat.blocks()).containsExactly(1, 2, 3);
    }

    @Test
    void theCloseFreezesTheHeatAtTheEpochTheSessionHasThen() {
        Replicator replicator = heats.open(session);
        replicator.read(5, 1);
        long epoch = session.nextEpoch();

        replicator.close();
        replicator.read(6, 1);

        assertThat(calls).containsExactly("read 5+1", "closed", "read 6+1");
        Recorded heat = heat();
        assertThat(heat.epoch()).isEqualTo(epoch).isGreaterThan(1);
        assertThat(heat.blocks()).containsExactly(5);
    }

    private Recorded heat() {
        return log.heat(ImageRef.of(session.info()), 100, 100);
    }
}
