package io.heliotrope.storage.rocksdb;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import static java.util.Objects.requireNonNull;

/**
 * The room the block store keeps on its file system. A write of block data is refused
 * with {@code NO_SPACE} while less than the reserve would be left free, a small change to
 * the index (a catalog entry, a session's epoch, the view) while less than
 * {@value #INDEX_CHANGE_ROOM} bytes are. RocksDB must always find room for its log: a
 * write to the log that fails is a fatal background error, which only reopening clears
 * (RocksDB 11.8 still refused writes 20 s after the space came back, and RocksJava has no
 * {@code Resume}), while a refused write costs nothing and goes through once space is
 * freed. A flush or compaction that finds no room stops RocksDB's writes only until the
 * store's {@code SstFileManager} sees space again, which it checks every 5 s.
 *
 * <p>Free space ({@code statvfs}) is measured at most every second, and again whenever
 * the bytes admitted since may have taken it below what a write needs: near the limit each
 * write measures, so none is refused once space is freed.
 *
 * <p>When RocksDB cannot even open writable for lack of space (it writes a new log,
 * manifest and options file), {@link #open} opens it read-only: reads are served and every
 * write is refused until the site restarts with space freed.
 */
final class DiskSpace {
    static final long INDEX_CHANGE_ROOM = 4L << 20;
    private static final Logger log = LoggerFactory.getLogger(DiskSpace.class);
    private static final long MEASURE_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Path directory;
    private final LongSupplier usableBytes;
    private final long reserveBytes;
    private final LongSupplier nanoClock;
    private volatile boolean readOnly;
    /** Free bytes when last measured, less what was admitted since. */
    private long free;
    private long measuredAt;
    /** Whether the last write of block data was refused, so the next one admitted is logged. */
    private boolean refusing;

    /** @param reserveBytes free space below which writes of block data are refused */
    DiskSpace(Path directory, long reserveBytes) throws IOException {
        this(directory, usableSpace(Files.getFileStore(directory)), reserveBytes, System::nanoTime);
    }

    DiskSpace(Path directory, LongSupplier usableBytes, long reserveBytes, LongSupplier nanoClock) {
        this.directory = requireNonNull(directory, "directory is null");
        this.usableBytes = requireNonNull(usableBytes, "usableBytes is null");
        this.reserveBytes = reserveBytes;
        this.nanoClock = requireNonNull(nanoClock, "nanoClock is null");
    }

    /** Opens RocksDB writable, or read-only if it has no room to open writable. */
    RocksDB open(DBOptions options, Path path, List<ColumnFamilyDescriptor> families, List<ColumnFamilyHandle> handles) throws RocksDBException {
        try {
            return RocksDB.open(options, path.toString(), families, handles);
        } catch (RocksDBException e) {
            if (!StorageErrors.isNoSpace(e)) {
                throw e;
            }
            try {
                RocksDB db = RocksDB.openReadOnly(options, path.toString(), families, handles);
                readOnly = true;
                log.warn("{}: the file system is full, so the block store opened read-only: reads work, writes fail with ENOSPC;"
                        + " free space there and restart the site ({})", directory, e.getMessage());
                return db;
            } catch (RocksDBException readOnlyToo) {
                e.addSuppressed(readOnlyToo);
                throw e;
            }
        }
    }

    /** Whether RocksDB was opened read-only, so nothing may be written to it. */
    boolean readOnly() {
        return readOnly;
    }

    /** Admits a write of {@code bytes} of block data, or refuses it with {@code NO_SPACE}. */
    synchronized void admit(long bytes) {
        try {
            check(bytes, reserveBytes);
        } catch (HeliotropeException e) {
            if (!refusing) {
                refusing = true;
                log.warn("{}: writes fail with ENOSPC from now on: {}", directory, e.getMessage());
            }
            throw e;
        }
        if (refusing) {
            refusing = false;
            log.info("{}: writes go through again, with {} MiB free", directory, free >> 20);
        }
        free -= bytes;
    }

    /** Admits a small change to the index, or refuses it with {@code NO_SPACE}. */
    synchronized void admitIndexChange() {
        check(0, INDEX_CHANGE_ROOM);
    }

    private void check(long bytes, long room) {
        if (readOnly) {
            throw new HeliotropeException(ErrorCode.NO_SPACE, "the block store in " + directory
                    + " is read-only, as its file system was full when the site started: free space there and restart the site");
        }
        long now = nanoClock.getAsLong();
        if (free - bytes < room || now - measuredAt >= MEASURE_EVERY_NANOS) {
            free = usableBytes.getAsLong();
            measuredAt = now;
        }
        if (free - bytes < room) {
            throw new HeliotropeException(ErrorCode.NO_SPACE, "the file system of " + directory + " has " + (free >> 20)
                    + " MiB free, and the block store keeps " + (room >> 20) + " MiB of it for its index: free space there");
        }
    }

    private static LongSupplier usableSpace(FileStore store) {
        return () -> {
            try {
                return store.getUsableSpace();
            } catch (IOException e) {
                throw StorageErrors.failure("cannot measure the free space of " + store, e);
            }
        };
    }
}
