package io.heliotrope.storage.rocksdb;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static io.heliotrope.storage.rocksdb.BlockFiles.GROUP;

/**
 * Where the blocks of recently read groups are, so that a large read does not step a
 * RocksDB iterator over the entry of every block: after random writes each block has
 * an entry of its own, and stepping over 256 of them through JNI took a fifth of the
 * time of a 1 MiB read.
 *
 * <p>Direct-mapped: each group has one place, and a group cached there replaces the one
 * before. Each place has a stamp, which {@link #changed} increments after every change
 * to the index of a group of that place is committed. A cached group carries the stamp
 * its loader read before it read the index, and is used only while its place still has
 * that stamp: so no read that starts after a write has returned sees a group cached
 * before the write, whichever order loads and writes ran in. Lock-free; about 1.3 KiB
 * per place.
 */
final class IndexCache {
    /** No data in the block's slots: unwritten or a zero marker. */
    static final byte NO_DATA = -1;
    private static final int PLACES = 1 << 13;

    private final AtomicReferenceArray<Group> groups = new AtomicReferenceArray<>(PLACES);
    private final AtomicLongArray stamps = new AtomicLongArray(PLACES);

    /**
     * A group's blocks as a read needs them: the slot of each one's data, or
     * {@link #NO_DATA}, and its checksum.
     */
    record Group(long imageId, long group, long stamp, byte[] slots, int[] crcs) {
        Group {
            if (slots.length != GROUP || crcs.length != GROUP) {
                throw new IllegalArgumentException("a group has " + GROUP + " blocks");
            }
        }
    }

    /** The stamp to cache a group with: read it before reading the group's entries from the index. */
    long stamp(long imageId, long group) {
        return stamps.get(place(imageId, group));
    }

    /** The group, if it is cached and nothing changed it since. */
    Group get(long imageId, long group) {
        int place = place(imageId, group);
        Group cached = groups.get(place);
        return cached != null && cached.imageId() == imageId && cached.group() == group && cached.stamp() == stamps.get(place) ? cached : null;
    }

    void put(Group group) {
        groups.set(place(group.imageId(), group.group()), group);
    }

    /** Called after a change to the entries of blocks {@code [firstBlock, firstBlock + count)} is committed. */
    void changed(long imageId, long firstBlock, long count) {
        long last = (firstBlock + count - 1) / GROUP;
        for (long group = firstBlock / GROUP; group <= last && group < firstBlock / GROUP + PLACES; group++) {
            stamps.incrementAndGet(place(imageId, group));
        }
    }

    /** Called after a change to the entries of any number of blocks, such as an image's removal, is committed. */
    void changedAll() {
        for (int place = 0; place < PLACES; place++) {
            stamps.incrementAndGet(place);
        }
    }

    /** Consecutive groups of an image have consecutive places. */
    private static int place(long imageId, long group) {
        return (int) (group + imageId * 0x9E3779B97F4A7C15L) & PLACES - 1;
    }
}
