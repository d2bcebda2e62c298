package io.heliotrope.storage.rocksdb;

import io.heliotrope.storage.ImageInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Path;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static io.heliotrope.storage.BlockStore.Dirty.RECORD;
import static io.heliotrope.storage.rocksdb.TestBlockSlots.filled;
import static io.heliotrope.storage.rocksdb.TestBlockSlots.read;
import static org.assertj.core.api.Assertions.assertThat;

class TestScatteredGroups {
    @TempDir
    Path directory;

    @Test
    void aWholeGroupWriteOverScatteredBlocksHasThemGatheredIntoOneSlotAfterTheNextSync() throws IOException {
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20)) {
            ImageInfo image = withBlocksInSlotOne(store, 1, 100, 2);
            // 50 blocks take slot 0 and 206 slot 1; the sync this write asks for moves the 50 to slot 1.
            store.write(image.id(), 0, group(7), 3, RECORD, true);
            assertThat(slotHolds(image.id(), 0, 1, 7)).as("every block's data in slot 1").isTrue();
            long syncs = store.syncs();
            store.write(image.id(), 0, group(11), 4, RECORD, false);
            assertThat(store.syncs()).as("the moved blocks' old slots, where the synced index points, are reused only after a sync")
                    .isEqualTo(syncs + 1);
            assertThat(slotHolds(image.id(), 0, 0, 11)).as("the next write of the group lands in one run").isTrue();
            assertThat(read(store, image.id(), 0, 256)).isEqualTo(group(11));
        }
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20)) {
            assertThat(read(store, store.image("disk").id(), 0, 256)).isEqualTo(group(11));
        }
    }

    @Test
    void aRewriteThatSyncsFirstHasTheOtherScatteredGroupsGatheredButNotItsOwn() throws IOException {
        try (RocksBlockStore store = new RocksBlockStore(directory, 8 << 20)) {
            ImageInfo image = withBlocksInSlotOne(store, 2, 512, 3);
            store.write(image.id(), 0, twoGroups(7), 3, RECORD, false);
            assertThat(slotHolds(image.id(), 1, 0, 7) || slotHolds(image.id(), 1, 1, 7)).as("group 1 is scattered").isFalse();
            // Group 0 was written since the sync, so this write syncs first; then group 1 has nothing unsynced and is gathered.
            store.write(image.id(), 0, group(9), 4, RECORD, false);
            assertThat(slotHolds(image.id(), 1, 1, 7)).as("group 1's data in slot 1, where most of its blocks were").isTrue();
            assertThat(slotHolds(image.id(), 0, 0, 9) || slotHolds(image.id(), 0, 1, 9))
                    .as("group 0 was just written: its blocks' other slots hold their synced copies, so it waits").isFalse();
            ByteBuffer all = read(store, image.id(), 0, 512);
            assertThat(all.slice(0, 256 * BLOCK_SIZE)).isEqualTo(group(9));
            assertThat(all.slice(256 * BLOCK_SIZE, 256 * BLOCK_SIZE)).isEqualTo(group(7));
        }
    }

    /**
     * An image of {@code groups} groups written whole into slot 0, then every
     * {@code step}-th block below {@code end} rewritten into slot 1, and synced.
     */
    private static ImageInfo withBlocksInSlotOne(RocksBlockStore store, int groups, int end, int step) {
        ImageInfo image = store.createImage("disk", groups * 256L * BLOCK_SIZE);
        store.write(image.id(), 0, ByteBuffer.allocate(groups * 256 * BLOCK_SIZE), 1, RECORD, true);
        for (int block = 0; block < end; block += step) {
            store.write(image.id(), block, filled(BLOCK_SIZE, 200), 2, RECORD, false);
        }
        store.sync();
        return image;
    }

    private static ByteBuffer twoGroups(int shift) {
        return ByteBuffer.allocate(512 * BLOCK_SIZE).put(group(shift)).put(group(shift)).flip();
    }

    /** A group whose block {@code i} is filled with {@code (i + shift) % 256}. */
    private static ByteBuffer group(int shift) {
        ByteBuffer group = ByteBuffer.allocate(256 * BLOCK_SIZE);
        for (int i = 0; i < 256; i++) {
            group.put(filled(BLOCK_SIZE, (i + shift) % 256));
        }
        return group.flip();
    }

    /** Whether {@code slot} of every block of one of the image's groups holds {@link #group(int) group(shift)}'s data. */
    private boolean slotHolds(long imageId, int group, int slot, int shift) throws IOException {
        try (RandomAccessFile file = new RandomAccessFile(directory.resolve("blocks").resolve(imageId + ".blocks").toFile(), "r")) {
            for (int i = 0; i < 256; i++) {
                file.seek(BlockFiles.offset(group * 256L + i, slot));
                if (file.read() != (i + shift) % 256) {
                    return false;
                }
            }
        }
        return true;
    }
}
