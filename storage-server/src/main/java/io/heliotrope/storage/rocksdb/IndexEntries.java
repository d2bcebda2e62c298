package io.heliotrope.storage.rocksdb;

import io.heliotrope.storage.BlockStore.BlockState;
import io.heliotrope.storage.BlockStore.BlockVersion;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

import static io.heliotrope.storage.rocksdb.BlockFiles.GROUP;

/**
 * Keys and values of the {@code blocks} column family of {@link RocksBlockStore}.
 * <ul>
 *   <li>A block entry, key {@code imageId(8) | block(8)}: {@code version(8) | state(1) | slot(1)},
 *   followed for data by the {@code crc32c(4)} of the data in that slot. Slot {@link #INLINE}
 *   means the data is in the {@code inline} column family under the same key. A zero marker
 *   keeps the slot of the block's last data.</li>
 *   <li>A group entry, key {@code imageId(8) | firstBlock(8) | 0}, for a write that covered
 *   all {@value BlockFiles#GROUP} blocks of a group: {@code version(8) | state(1)}, one slot
 *   bit per block, and for data one {@code crc32c(4)} per block. It sorts right after the
 *   entry of the group's first block, so a key range of blocks holds the group entries of
 *   the groups that start in it.</li>
 * </ul>
 * A block's own entry, when it has one, is newer than its group's entry: a group entry
 * is written together with the deletion of the entries of its blocks.
 */
final class IndexEntries {
    static final byte STATE_DATA = 1;
    static final byte STATE_ZERO = 2;
    static final int STATE = 8;
    static final int SLOT = 9;
    static final int CRC = 10;
    /** The slot of a block whose data is in the index, not in its block file. */
    static final int INLINE = 2;
    private static final int KEY = 16;
    private static final int GROUP_SLOTS = 9;
    private static final int GROUP_CRCS = GROUP_SLOTS + GROUP / 8;

    private IndexEntries() {}

    static byte[] key(long imageId, long block) {
        return ByteBuffer.allocate(KEY).putLong(imageId).putLong(block).array();
    }

    static byte[] groupKey(long imageId, long group) {
        return ByteBuffer.allocate(KEY + 1).putLong(imageId).putLong(group * GROUP).array();
    }

    static boolean isGroupKey(byte[] key) {
        return key.length == KEY + 1;
    }

    /** The block of a block key, or the first block of a group key. */
    static long block(byte[] key) {
        return ByteBuffer.wrap(key).getLong(8);
    }

    static byte[] dataEntry(long version, int slot, int crc) {
        return ByteBuffer.allocate(CRC + 4).putLong(version).put(STATE_DATA).put((byte) slot).putInt(crc).array();
    }

    static byte[] zeroEntry(long version, int slot) {
        return ByteBuffer.allocate(CRC).putLong(version).put(STATE_ZERO).put((byte) slot).array();
    }

    static long version(byte[] entry) {
        return ByteBuffer.wrap(entry).getLong();
    }

    static boolean isData(byte[] entry) {
        return entry[STATE] == STATE_DATA;
    }

    /** Whether a data entry's copy is in the index, not in the block file. */
    static boolean isInline(byte[] entry) {
        return isData(entry) && entry[SLOT] == INLINE;
    }

    static int crc(byte[] entry) {
        return ByteBuffer.wrap(entry).getInt(CRC);
    }

    /** The checksum an entry keeps of a block's data. */
    static int checksum(ByteBuffer data) {
        CRC32C crc = new CRC32C();
        crc.update(data.duplicate());
        return (int) crc.getValue();
    }

    /** The version and state of a block entry, or of a {@link DirtyLog} value, which starts the same way. */
    static BlockVersion blockVersion(long block, byte[] value) {
        return new BlockVersion(block, version(value), value[STATE] == STATE_DATA ? BlockState.DATA : BlockState.ZERO);
    }

    /** A group entry for data: the slot and checksum of each block, from {@code from} in the arrays on. */
    static byte[] dataGroupEntry(long version, int[] slots, int[] crcs, int from) {
        ByteBuffer entry = groupEntry(version, STATE_DATA, slots, from, GROUP_CRCS + GROUP * 4);
        for (int i = 0; i < GROUP; i++) {
            entry.putInt(GROUP_CRCS + i * 4, crcs[from + i]);
        }
        return entry.array();
    }

    /** A group entry of zero markers, keeping each block's slot. */
    static byte[] zeroGroupEntry(long version, int[] slots) {
        return groupEntry(version, STATE_ZERO, slots, 0, GROUP_CRCS).array();
    }

    private static ByteBuffer groupEntry(long version, byte state, int[] slots, int from, int length) {
        ByteBuffer entry = ByteBuffer.allocate(length).putLong(version).put(state);
        for (int i = 0; i < GROUP; i++) {
            if (slots[from + i] == 1) {
                entry.put(GROUP_SLOTS + i / 8, (byte) (entry.get(GROUP_SLOTS + i / 8) | 1 << i % 8));
            }
        }
        return entry;
    }

    /** The block entry that a group entry gives its {@code index}-th block. */
    static byte[] ofGroup(byte[] group, int index) {
        long version = version(group);
        int slot = group[GROUP_SLOTS + index / 8] >> index % 8 & 1;
        return isData(group) ? dataEntry(version, slot, ByteBuffer.wrap(group).getInt(GROUP_CRCS + index * 4)) : zeroEntry(version, slot);
    }
}
