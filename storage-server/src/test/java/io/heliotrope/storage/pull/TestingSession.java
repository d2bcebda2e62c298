package io.heliotrope.storage.pull;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.BlockStore.GlobalBlock;
import io.heliotrope.storage.ImageInfo;
import io.heliotrope.storage.Replication;
import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.storage.view.IoGate;

import java.time.Instant;
import java.util.SortedMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentSkipListMap;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;

/** A session whose stale set a test fills: blocks elsewhere, at holders it names. */
final class TestingSession implements ImageSession {
    private final ImageInfo info;
    private final ConcurrentSkipListMap<Long, GlobalBlock> stale = new ConcurrentSkipListMap<>();
    private final IoGate gate;
    volatile Replication replication = Replication.defaults("a");
    volatile long holding = 5;
    volatile boolean fenced;

    TestingSession(long blocks, IoGate gate) {
        this.info = new ImageInfo(1, "disk", blocks * BLOCK_SIZE, Instant.EPOCH, UUID.randomUUID());
        this.gate = gate;
    }

    /** Blocks [first, first + count) are current at {@code holder} only, at version 3. */
    TestingSession elsewhere(long first, long count, String holder) {
        for (long block = first; block < first + count; block++) {
            stale.put(block, new GlobalBlock(block, 3, holder));
        }
        return this;
    }

    /** Block {@code block} is a zero marker: nothing to fetch. */
    TestingSession zero(long block) {
        stale.put(block, new GlobalBlock(block, 3, null));
        return this;
    }

    @Override
    public ImageInfo info() {
        return info;
    }

    @Override
    public Replication replication() {
        return replication;
    }

    @Override
    public long epoch() {
        return holding;
    }

    @Override
    public long holdingEpoch() {
        return holding;
    }

    @Override
    public long nextEpoch() {
        throw new UnsupportedOperationException();
    }

    @Override
    public void checkCurrent() {
        if (fenced) {
            throw new HeliotropeException(ErrorCode.STALE_LEASE, "fenced");
        }
    }

    @Override
    public SortedMap<Long, GlobalBlock> stale(long first, long count) {
        return stale.subMap(first, first + count);
    }

    @Override
    public long elsewhereBlocks() {
        return stale.values().stream().filter(block -> !block.zero()).count();
    }

    @Override
    public void wrote(long first, long count) {
        stale.subMap(first, first + count).clear();
    }

    @Override
    public void fetched(GlobalBlock block) {
        stale.remove(block.block(), block);
    }

    @Override
    public IoGate gate() {
        return gate;
    }

    @Override
    public void close() {}
}
