package io.heliotrope.storage.rocksdb;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongUnaryOperator;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static io.heliotrope.storage.rocksdb.IndexEntries.INLINE;
import static java.util.Objects.requireNonNull;

/**
 * Block data of {@link RocksBlockStore}: one sparse file per image with two slots per
 * block, so a write never overwrites the copy the index points at. Slots are laid out
 * in groups of {@value #GROUP} blocks (1 MiB): slot 0 of a group's blocks, then slot 1,
 * so blocks written together in one slot are contiguous on disk.
 *
 * <p>A file is as long as its image's slots and is memory-mapped in chunks of up to
 * 1 GiB: a 4 KiB read is a copy, not a system call, and so is a write over earlier data
 * on tmpfs (random 4 KiB writes over NBD on tmpfs: 111K/s with {@code pwrite}, 136K/s
 * mapped). Elsewhere writes go through {@code pwrite}: on a disk, writeback
 * write-protects the mapped pages it cleans, so every next write to one faults, and the
 * cleaning flushes the other cores' TLBs (random 4 KiB writes over NBD, ext4: 37K/s
 * mapped, 46K/s with {@code pwrite}). Writes are made durable by {@code msync} and {@code fdatasync}. A file is truncated before it is deleted, so
 * its space is freed at once even while a mapping that only the garbage collector can
 * drop is left. The store resizes and deletes files only while no request is in flight
 * on their image. A page that cannot be had (a file cut short by someone else, an I/O
 * error) faults, and the JVM raises an {@link InternalError} on that thread soon after.
 */
final class BlockFiles implements AutoCloseable {
    static final int GROUP = 256;
    /**
     * The most one {@code pwrite} writes. A longer write asks the page cache for larger
     * folios, which cost more to allocate than they save (Linux 6.18, ext4, 2 cores: dd of
     * 1 GiB into a new file, 0.3-0.8 s of system time with 256 KiB writes, 0.8-1.8 s with
     * 2 MiB; a site took 2.0-3.5 s of CPU to store 1 GiB sent in 1 MiB NBD writes, 0.6-2.0 s
     * once it wrote them in pieces of 256 KiB).
     */
    private static final int MAX_PWRITE = 256 * 1024;
    private static final int CHUNK_SHIFT = 30;
    private static final long CHUNK = 1L << CHUNK_SHIFT;
    private static final Logger log = LoggerFactory.getLogger(BlockFiles.class);

    private final Path directory;
    private final LongUnaryOperator blockCounts;
    private final boolean mapsWrites;
    private final Map<Long, ImageFile> files = new ConcurrentHashMap<>();
    private final Set<Long> unsynced = ConcurrentHashMap.newKeySet();

    /** One image's file and its chunks, each mapped when first used. */
    private static final class ImageFile {
        final FileChannel channel;
        final AtomicReferenceArray<MappedByteBuffer> chunks;
        final long length;

        ImageFile(FileChannel channel, long length) {
            this.channel = channel;
            this.length = length;
            this.chunks = new AtomicReferenceArray<>((int) ((length + CHUNK - 1) >> CHUNK_SHIFT));
        }

        MappedByteBuffer chunk(int index) throws IOException {
            MappedByteBuffer chunk = chunks.get(index);
            return chunk != null ? chunk : map(index);
        }

        private synchronized MappedByteBuffer map(int index) throws IOException {
            if (chunks.get(index) == null) {
                long start = (long) index << CHUNK_SHIFT;
                chunks.set(index, channel.map(FileChannel.MapMode.READ_WRITE, start, Math.min(CHUNK, length - start)));
            }
            return chunks.get(index);
        }

        /**
         * Syncs what was copied into the mappings, if writes go there, then what was written
         * through the channel: an {@code msync} is an {@code fsync} of the file on Linux, so
         * a FLUSH on a disk, where writes never go through the mappings, pays one, not two.
         */
        void force(boolean mapsWrites) throws IOException {
            for (int i = 0; mapsWrites && i < chunks.length(); i++) {
                MappedByteBuffer chunk = chunks.get(i);
                if (chunk != null) {
                    chunk.force();
                }
            }
            channel.force(false);
        }
    }

    /** @param blockCounts gives the number of blocks of an image by its id */
    BlockFiles(Path directory, LongUnaryOperator blockCounts) throws IOException {
        this.directory = requireNonNull(directory, "directory is null");
        this.blockCounts = requireNonNull(blockCounts, "blockCounts is null");
        Files.createDirectories(directory);
        String type = Files.getFileStore(directory).type();
        mapsWrites = mapsWrites(type);
        log.info("block files in {} are on {}: writes go through {}, reads through the mappings", directory, type, mapsWrites ? "the mappings" : "pwrite");
    }

    /**
     * Whether writes over earlier data are copied into the mappings on a file system of
     * this type: only on tmpfs, which has no writeback. Never on a disk, and above all not on
     * copy-on-write file systems, where an overwrite needs new space too and a full disk
     * would fault the copy instead of failing a {@code pwrite}.
     */
    static boolean mapsWrites(String fileSystemType) {
        return "tmpfs".equals(fileSystemType);
    }

    /** The byte offset of {@code block}'s copy in {@code slot} (0 or 1). */
    static long offset(long block, int slot) {
        return ((block / GROUP * 2 + slot) * GROUP + block % GROUP) * BLOCK_SIZE;
    }

    /** The length of the file of an image of {@code blockCount} blocks: both slots of every group. */
    static long length(long blockCount) {
        return offset((blockCount + GROUP - 1) / GROUP * GROUP, 0);
    }

    /**
     * Writes {@code data} at {@code position} of the image's file; durable after {@link #sync()}.
     * Where the file already has pages ({@code overwrite}) on tmpfs the data is copied into
     * the mapping. Elsewhere it is written with a
     * system call, which allocates the pages and fails cleanly on a full disk, where a copy
     * into a mapping would fault.
     */
    void write(long imageId, long position, ByteBuffer data, boolean overwrite) {
        if (overwrite && mapsWrites) {
            for (long at = position; data.hasRemaining(); ) {
                int length = pieceLength(at, data.remaining());
                chunk(imageId, at, "write").put((int) (at & CHUNK - 1), data, data.position(), length);
                data.position(data.position() + length);
                at += length;
            }
        } else {
            FileChannel channel = file(imageId).channel;
            try {
                for (long at = position; data.hasRemaining(); ) {
                    int written = channel.write(data.slice(data.position(), Math.min(data.remaining(), MAX_PWRITE)), at);
                    data.position(data.position() + written);
                    at += written;
                }
            } catch (IOException e) {
                throw failure("write", imageId, e);
            }
        }
        // Marked after writing: a sync that takes the mark before this write ends must not count it as synced.
        // Looked up first, which takes no lock: one image's writes find the mark there nearly always.
        if (!unsynced.contains(imageId)) {
            unsynced.add(imageId);
        }
    }

    /**
     * Writes blocks {@code from} to {@code to} of {@code source} (block {@code i} at
     * {@code i * BLOCK_SIZE}, block 0 being {@code firstBlock} of the image) into their
     * {@code slots}, in runs of blocks that lie together in the file and whose slots all
     * held data before or none did; blocks whose slot is {@link IndexEntries#INLINE} stay out.
     */
    void writeRuns(long imageId, long firstBlock, ByteBuffer source, int[] slots, boolean[] heldData, int from, int to) {
        for (int end; from < to; from = end) {
            end = from + 1;
            if (slots[from] == INLINE) {
                continue;
            }
            long offset = offset(firstBlock + from, slots[from]);
            while (end < to && slots[end] != INLINE && heldData[end] == heldData[from]
                    && offset(firstBlock + end, slots[end]) == offset + (long) (end - from) * BLOCK_SIZE) {
                end++;
            }
            write(imageId, offset, source.slice(from * BLOCK_SIZE, (end - from) * BLOCK_SIZE), heldData[from]);
        }
    }

    /** Fills {@code destination} from {@code position} of the image's file. */
    void read(long imageId, long position, ByteBuffer destination) {
        while (destination.hasRemaining()) {
            int length = pieceLength(position, destination.remaining());
            destination.put(destination.position(), chunk(imageId, position, "read"), (int) (position & CHUNK - 1), length);
            destination.position(destination.position() + length);
            position += length;
        }
    }

    /** How much of {@code remaining} bytes from {@code position} lie in its chunk. */
    private static int pieceLength(long position, int remaining) {
        return (int) Math.min(remaining, CHUNK - (position & CHUNK - 1));
    }

    /** The mapped chunk that holds {@code position}. */
    private MappedByteBuffer chunk(long imageId, long position, String action) {
        ImageFile file = file(imageId);
        if (position < 0 || position >= file.length) {
            throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "cannot " + action + " offset " + position + " of the block file of image "
                    + imageId + ": it ends at " + file.length);
        }
        try {
            return file.chunk((int) (position >> CHUNK_SHIFT));
        } catch (IOException e) {
            throw failure("map", imageId, e);
        }
    }

    /**
     * Makes every write so far durable. One sync at a time: a sync takes an image off the
     * unsynced ones before it forces its file, so a sync that ran beside it could find
     * nothing to do and return before that data is durable (syncs come from the store's
     * writes, its background syncs and RocksDB's memtable flushes). Resizing and deleting,
     * which close a file's channel, wait for it too.
     */
    synchronized void sync() {
        for (Long imageId : List.copyOf(unsynced)) {
            unsynced.remove(imageId);
            ImageFile file = files.get(imageId);
            try {
                if (file != null) {
                    file.force(mapsWrites);
                }
            } catch (IOException | UncheckedIOException e) {
                unsynced.add(imageId);
                throw failure("sync", imageId, e);
            }
        }
    }

    /** Whether some write is not synced yet. */
    boolean unsynced() {
        return !unsynced.isEmpty();
    }

    /**
     * Fits the image's file to its new block count, dropping the slots of blocks from
     * {@code blockCount} on (whole groups stay); nothing may read or write the image meanwhile.
     */
    synchronized void resize(long imageId, long blockCount) {
        ImageFile file = files.remove(imageId);
        try {
            if (file != null) {
                file.force(mapsWrites);
                file.channel.close();
            }
            if (Files.exists(path(imageId))) {
                try (FileChannel channel = FileChannel.open(path(imageId), StandardOpenOption.WRITE)) {
                    channel.truncate(length(blockCount));
                    channel.force(false);
                }
            }
        } catch (IOException | UncheckedIOException e) {
            throw failure("resize", imageId, e);
        }
    }

    /** Removes the image's file; nothing may read or write the image any more. */
    synchronized void delete(long imageId) {
        ImageFile file = files.remove(imageId);
        unsynced.remove(imageId);
        try {
            if (file != null) {
                file.channel.truncate(0);
                file.channel.close();
            }
            Files.deleteIfExists(path(imageId));
        } catch (IOException e) {
            throw failure("delete", imageId, e);
        }
    }

    /** The files' lengths: both slots of every block of the images in use, holes included. */
    long totalBytes() {
        return files.values().stream().mapToLong(file -> file.length).sum();
    }

    @Override
    public void close() {
        try {
            sync();
        } finally {
            for (ImageFile file : files.values()) {
                try {
                    file.channel.close();
                } catch (IOException ignored) {
                    // Synced above; closing only frees the descriptor.
                }
            }
            files.clear();
        }
    }

    private ImageFile file(long imageId) {
        return files.computeIfAbsent(imageId, id -> {
            try {
                return new ImageFile(FileChannel.open(path(id), StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE),
                        length(blockCounts.applyAsLong(id)));
            } catch (IOException e) {
                throw failure("open", id, e);
            }
        });
    }

    private Path path(long imageId) {
        return directory.resolve(imageId + ".blocks");
    }

    private static HeliotropeException failure(String action, long imageId, Exception e) {
        return StorageErrors.failure("cannot " + action + " the block file of image " + imageId, e);
    }
}
