package io.heliotrope.storage.rocksdb;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static java.util.Objects.requireNonNull;

/**
 * Block data of {@link RocksBlockStore}: one sparse file per image with two slots per
 * block, so a write never overwrites the copy the index points at. Slots are laid out
 * in groups of {@value #GROUP} blocks (1 MiB): slot 0 of a group's blocks, then slot 1,
 * so blocks written together in one slot are contiguous on disk.
 */
final class BlockFiles implements AutoCloseable {
    static final int GROUP = 256;

    private final Path directory;
    private final Map<Long, FileChannel> files = new ConcurrentHashMap<>();
    private final Set<Long> unsynced = ConcurrentHashMap.newKeySet();

    BlockFiles(Path directory) throws IOException {
        this.directory = requireNonNull(directory, "directory is null");
        Files.createDirectories(directory);
    }

    /** The byte offset of {@code block}'s copy in {@code slot} (0 or 1). */
    static long offset(long block, int slot) {
        return ((block / GROUP * 2 + slot) * GROUP + block % GROUP) * BLOCK_SIZE;
    }

    /** Writes {@code data} at {@code position} of the image's file; durable after {@link #sync()}. */
    void write(long imageId, long position, ByteBuffer data) {
        FileChannel file = file(imageId);
        try {
            while (data.hasRemaining()) {
                position += file.write(data, position);
            }
        } catch (IOException e) {
            throw failure("write", imageId, e);
        }
        unsynced.add(imageId);
    }

    /** Fills {@code destination} from {@code position} of the image's file. */
    void read(long imageId, long position, ByteBuffer destination) {
        FileChannel file = file(imageId);
        try {
            while (destination.hasRemaining()) {
                int read = file.read(destination, position);
                if (read < 0) {
                    throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "block file of image " + imageId + " ends before offset " + position);
                }
                position += read;
            }
        } catch (IOException e) {
            throw failure("read", imageId, e);
        }
    }

    /** Makes every write so far durable. */
    void sync() {
        for (Long imageId : List.copyOf(unsynced)) {
            unsynced.remove(imageId);
            FileChannel file = files.get(imageId);
            try {
                if (file != null) {
                    file.force(false);
                }
            } catch (IOException e) {
                unsynced.add(imageId);
                throw failure("sync", imageId, e);
            }
        }
    }

    /** Whether some write is not synced yet. */
    boolean unsynced() {
        return !unsynced.isEmpty();
    }

    /** Drops the slots of blocks from {@code blockCount} on, keeping whole groups. */
    void truncate(long imageId, long blockCount) {
        long groups = (blockCount + GROUP - 1) / GROUP;
        try {
            file(imageId).truncate(groups * 2 * GROUP * BLOCK_SIZE);
        } catch (IOException e) {
            throw failure("truncate", imageId, e);
        }
    }

    /** Removes the image's file; nothing may read or write the image any more. */
    void delete(long imageId) {
        FileChannel file = files.remove(imageId);
        unsynced.remove(imageId);
        try {
            if (file != null) {
                file.close();
            }
            Files.deleteIfExists(path(imageId));
        } catch (IOException e) {
            throw failure("delete", imageId, e);
        }
    }

    /** The files' sizes (both slots, holes included). */
    long totalBytes() {
        return files.entrySet().stream().mapToLong(file -> size(file.getKey(), file.getValue())).sum();
    }

    private static long size(long imageId, FileChannel file) {
        try {
            return file.size();
        } catch (IOException e) {
            throw failure("size", imageId, e);
        }
    }

    @Override
    public void close() {
        try {
            sync();
        } finally {
            for (FileChannel file : files.values()) {
                try {
                    file.close();
                } catch (IOException ignored) {
                    // Synced above; closing only frees the descriptor.
                }
            }
            files.clear();
        }
    }

    private FileChannel file(long imageId) {
        return files.computeIfAbsent(imageId, id -> {
            try {
                return FileChannel.open(path(id), StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            } catch (IOException e) {
                throw failure("open", id, e);
            }
        });
    }

    private Path path(long imageId) {
        return directory.resolve(imageId + ".blocks");
    }

    private static HeliotropeException failure(String action, long imageId, IOException e) {
        return new HeliotropeException(ErrorCode.STORAGE_FAILURE, "cannot " + action + " the block file of image " + imageId + ": " + e.getMessage(), e);
    }
}
