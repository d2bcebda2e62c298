package io.heliotrope.storage.rocksdb;

import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.BlockStore.CopyRule;
import io.heliotrope.storage.BlockStore.Dirty;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.heliotrope.storage.rocksdb.IndexEntries.version;

/**
 * The copies of one {@link RocksBlockStore#storeCopies} call that its rule accepts, checked
 * in the order given, each against its block's local version as the copies accepted before
 * it in the call left it. Of each block only the last accepted copy is stored, as it would
 * replace the ones before it at once: data copies as writes that skip the dirty log, zero
 * copies as markers. Made under the {@link WritePipeline}'s write lock, from index entries
 * read under it.
 */
final class AcceptedCopies {
    /** Per copy, whether the rule accepted it. */
    final boolean[] stored;
    /** The data copies to store, one write each, in block order. */
    final List<QueuedWrite> writes = new ArrayList<>();
    /** The blocks to give zero markers, in block order, and each one's version. */
    final long[] zeroBlocks;
    final long[] zeroVersions;

    /** @param entries the index entry of each copy's block, null for a block that has none */
    AcceptedCopies(long imageId, List<Copy> copies, CopyRule rule, byte[][] entries, boolean sync) {
        stored = new boolean[copies.size()];
        Map<Long, Long> versions = new HashMap<>();
        TreeMap<Long, Copy> last = new TreeMap<>();
        for (int i = 0; i < stored.length; i++) {
            Copy copy = copies.get(i);
            long local = versions.getOrDefault(copy.block(), entries[i] == null ? 0 : version(entries[i]));
            stored[i] = rule.accepts(copy, local);
            if (stored[i]) {
                versions.put(copy.block(), copy.version());
                last.put(copy.block(), copy);
            }
        }
        int zeros = (int) last.values().stream().filter(Copy::zero).count();
        zeroBlocks = new long[zeros];
        zeroVersions = new long[zeros];
        int next = 0;
        for (Copy copy : last.values()) {
            if (copy.zero()) {
                zeroBlocks[next] = copy.block();
                zeroVersions[next++] = copy.version();
            } else {
                // A duplicate, as the write moves the buffer's position past the data it stores.
                writes.add(new QueuedWrite(imageId, copy.block(), copy.data().duplicate(), copy.version(), Dirty.SKIP, sync));
            }
        }
    }

    /** Throws the failure of the first write that failed, if one did. */
    void throwFailure() {
        for (QueuedWrite write : writes) {
            if (write.failure != null) {
                throw write.failure;
            }
        }
    }
}
