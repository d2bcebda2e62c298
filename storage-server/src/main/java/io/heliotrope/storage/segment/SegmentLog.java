package io.heliotrope.storage.segment;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import static java.util.Objects.requireNonNull;

/**
 * Append-only segment files holding block data. A record is a {@value #HEADER}-byte
 * header ({@code magic, crc32c of the data, imageId, block, version}) and the block's
 * {@value #BLOCK}-byte data. Appends go to the newest segment until it is full; a full
 * segment is sealed and never written again, only read, cleaned and deleted. A record's
 * location is its segment id and byte offset.
 */
public final class SegmentLog implements AutoCloseable {
    public static final int BLOCK = 4096;
    public static final int HEADER = 32;
    public static final int RECORD = HEADER + BLOCK;
    private static final int MAGIC = 0x48534547;
    private static final int CHUNK_BLOCKS = 256;

    private final Path directory;
    private final long maxSegmentBytes;
    private final ConcurrentSkipListMap<Integer, FileChannel> segments = new ConcurrentSkipListMap<>();
    private final Set<Integer> unsynced = ConcurrentHashMap.newKeySet();
    /** Scratch space for reading a run of records, one per reading thread. */
    private static final ThreadLocal<ByteBuffer> READ_BUFFERS = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(CHUNK_BLOCKS * RECORD));
    /** Appends are serialized, so one buffer serves them all. */
    private ByteBuffer recordBuffer;
    private int active;
    private long activeSize;

    /** Where a record is, and the checksum of its data. */
    public record Location(int segment, long offset, int crc) {}

    /** A record's header, read back while scanning a segment. */
    public record Record(Location location, long imageId, long block, long version) {}

    public SegmentLog(Path directory, long maxSegmentBytes) throws IOException {
        this.directory = requireNonNull(directory, "directory is null");
        this.maxSegmentBytes = Math.max(RECORD, maxSegmentBytes);
        Files.createDirectories(directory);
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file : files.filter(path -> path.getFileName().toString().endsWith(".seg")).toList()) {
                int id = Integer.parseInt(file.getFileName().toString().replace(".seg", ""));
                segments.put(id, FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE));
            }
        }
        active = segments.isEmpty() ? 1 : segments.lastKey() + 1;
        openActive();
    }

    /**
     * Appends {@code data} (whole blocks) as consecutive records of {@code firstBlock}
     * on; returns each record's location. Data is in the page cache when this returns;
     * {@link #sync()} makes it durable.
     */
    public synchronized List<Location> append(long imageId, long firstBlock, long version, ByteBuffer data) {
        int count = data.remaining() / BLOCK;
        List<Location> locations = new ArrayList<>(count);
        for (int done = 0; done < count; done += CHUNK_BLOCKS) {
            appendChunk(imageId, firstBlock + done, version, data, Math.min(CHUNK_BLOCKS, count - done), locations);
        }
        return locations;
    }

    /** Appends up to {@value #CHUNK_BLOCKS} records with one positional write. */
    private void appendChunk(long imageId, long firstBlock, long version, ByteBuffer data, int count, List<Location> locations) {
        int needed = count * RECORD;
        if (activeSize + needed > maxSegmentBytes && activeSize > 0) {
            roll();
        }
        ByteBuffer records = recordBuffer().limit(needed);
        CRC32C crc = new CRC32C();
        for (int i = 0; i < count; i++) {
            ByteBuffer block = data.slice(data.position(), BLOCK);
            crc.reset();
            crc.update(block.duplicate());
            int checksum = (int) crc.getValue();
            records.putInt(MAGIC).putInt(checksum).putLong(imageId).putLong(firstBlock + i).putLong(version).put(block);
            locations.add(new Location(active, activeSize + (long) i * RECORD + HEADER, checksum));
            data.position(data.position() + BLOCK);
        }
        records.flip();
        try {
            FileChannel channel = segments.get(active);
            long position = activeSize;
            while (records.hasRemaining()) {
                position += channel.write(records, position);
            }
        } catch (IOException e) {
            throw failure("append to segment " + active, e);
        }
        activeSize += needed;
        unsynced.add(active);
    }

    /** Reads one block's data into {@code destination} and checks it against the location's checksum. */
    public void read(Location location, ByteBuffer destination) {
        readRun(List.of(location), destination);
    }

    /** True when {@code next} is the record right after {@code previous} in the same segment. */
    public static boolean follows(Location previous, Location next) {
        return previous.segment() == next.segment() && next.offset() == previous.offset() + RECORD;
    }

    /**
     * Reads the data of consecutive records (each {@link #follows} the one before) with
     * one positional read, checks each block against its checksum, and puts the blocks
     * into {@code destination} in order.
     */
    public void readRun(List<Location> run, ByteBuffer destination) {
        for (int from = 0; from < run.size(); from += CHUNK_BLOCKS) {
            readChunk(run.subList(from, Math.min(run.size(), from + CHUNK_BLOCKS)), destination);
        }
    }

    private void readChunk(List<Location> run, ByteBuffer destination) {
        Location first = run.get(0);
        FileChannel channel = segments.get(first.segment());
        if (channel == null) {
            throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "segment " + first.segment() + " is missing");
        }
        ByteBuffer records = run.size() == 1
                ? destination.slice(destination.position(), BLOCK)
                : READ_BUFFERS.get().clear().limit((run.size() - 1) * RECORD + BLOCK);
        try {
            long position = first.offset();
            while (records.hasRemaining()) {
                int read = channel.read(records, position);
                if (read < 0) {
                    throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "segment " + first.segment() + " ends before offset " + position);
                }
                position += read;
            }
        } catch (IOException e) {
            throw failure("read segment " + first.segment(), e);
        }
        CRC32C crc = new CRC32C();
        for (int i = 0; i < run.size(); i++) {
            ByteBuffer block = run.size() == 1 ? destination.slice(destination.position(), BLOCK) : records.slice(i * RECORD, BLOCK);
            crc.reset();
            crc.update(block.duplicate());
            Location location = run.get(i);
            if ((int) crc.getValue() != location.crc()) {
                throw new HeliotropeException(ErrorCode.STORAGE_FAILURE,
                        "block data at segment " + location.segment() + " offset " + location.offset() + " fails its checksum");
            }
            if (run.size() == 1) {
                destination.position(destination.position() + BLOCK);
            } else {
                destination.put(block);
            }
        }
    }

    /** Makes every append so far durable. */
    public void sync() {
        for (Integer id : List.copyOf(unsynced)) {
            unsynced.remove(id);
            FileChannel channel = segments.get(id);
            if (channel != null) {
                try {
                    channel.force(false);
                } catch (IOException e) {
                    unsynced.add(id);
                    throw failure("sync segment " + id, e);
                }
            }
        }
    }

    /** Sealed segments, oldest first: the ones the cleaner may work on. */
    public synchronized List<Integer> sealedSegments() {
        return segments.headMap(active, false).keySet().stream().toList();
    }

    /** Bytes in all segments. */
    public synchronized long totalBytes() {
        long total = activeSize;
        for (Map.Entry<Integer, FileChannel> segment : segments.headMap(active, false).entrySet()) {
            try {
                total += segment.getValue().size();
            } catch (IOException e) {
                throw failure("size segment " + segment.getKey(), e);
            }
        }
        return total;
    }

    /** What a scan hands over for each record: where it is, whose block it holds, and its data. */
    public interface RecordVisitor {
        /** {@code data} is valid only during the call. */
        void visit(Record record, ByteBuffer data);
    }

    /**
     * Visits every intact record of a sealed segment in order, reading the segment in
     * chunks of {@value #CHUNK_BLOCKS} records; torn records (power loss) are skipped.
     */
    public void scan(int segment, RecordVisitor visitor) {
        FileChannel channel = segments.get(segment);
        ByteBuffer chunk = READ_BUFFERS.get();
        try {
            long size = channel.size();
            for (long start = 0; start + RECORD <= size; start += chunk.capacity()) {
                chunk.clear().limit((int) Math.min(chunk.capacity(), (size - start) / RECORD * RECORD));
                long position = start;
                while (chunk.hasRemaining() && channel.read(chunk, position) > 0) {
                    position = start + chunk.position();
                }
                chunk.flip();
                for (int at = 0; at + RECORD <= chunk.limit(); at += RECORD) {
                    if (chunk.getInt(at) != MAGIC) {
                        // A torn or lost record: no index entry can point at it with a matching checksum.
                        continue;
                    }
                    Location location = new Location(segment, start + at + HEADER, chunk.getInt(at + 4));
                    Record record = new Record(location, chunk.getLong(at + 8), chunk.getLong(at + 16), chunk.getLong(at + 24));
                    visitor.visit(record, chunk.slice(at + HEADER, BLOCK));
                }
            }
        } catch (IOException e) {
            throw failure("scan segment " + segment, e);
        }
    }

    /** Deletes a sealed segment; no index entry may point into it any more. */
    public void delete(int segment) {
        FileChannel channel = segments.remove(segment);
        unsynced.remove(segment);
        try {
            if (channel != null) {
                channel.close();
            }
            Files.deleteIfExists(file(segment));
        } catch (IOException e) {
            throw failure("delete segment " + segment, e);
        }
    }

    @Override
    public synchronized void close() {
        sync();
        for (FileChannel channel : segments.values()) {
            try {
                channel.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        segments.clear();
    }

    private void roll() {
        active++;
        openActive();
    }

    private void openActive() {
        try {
            segments.put(active, FileChannel.open(file(active), StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE));
            activeSize = 0;
        } catch (IOException e) {
            throw failure("create segment " + active, e);
        }
    }

    private Path file(int segment) {
        return directory.resolve(String.format("%08d.seg", segment));
    }

    private ByteBuffer recordBuffer() {
        if (recordBuffer == null) {
            recordBuffer = ByteBuffer.allocateDirect(CHUNK_BLOCKS * RECORD);
        }
        return recordBuffer.clear();
    }

    private static HeliotropeException failure(String action, IOException e) {
        return new HeliotropeException(ErrorCode.STORAGE_FAILURE, "cannot " + action + ": " + e.getMessage(), e);
    }
}
