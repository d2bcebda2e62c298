package io.heliotrope.cli.transfer;

import io.heliotrope.cli.print.Progress;
import io.heliotrope.nbd.Extent;
import io.heliotrope.nbd.client.NbdClient;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static io.heliotrope.cli.transfer.RawImport.BLOCK;
import static io.heliotrope.cli.transfer.RawImport.DEPTH;
import static io.heliotrope.cli.transfer.RawImport.PIECE;

/**
 * An image written to a raw file over NBD, sparse: {@code base:allocation} tells which
 * ranges hold data, only those are read, and blocks that read as zeros stay holes in the
 * file. Threads, each with a connection of its own and several reads in flight, take the
 * image a piece at a time and write what they read at its place in the file.
 */
final class RawExport extends ParallelCopy {
    /** The most one BLOCK_STATUS asks about: its length is 32 bits. */
    private static final int STATUS_SPAN = Integer.MIN_VALUE >>> 1;

    private final NbdImage image;
    private final Path file;
    private final FileChannel target;
    private final Progress progress;
    private final AtomicLong nextPiece = new AtomicLong();
    private final AtomicLong written = new AtomicLong();
    /** Start and end of each range that holds data, in order. */
    private long[] data;
    private long size;

    /** Writes {@code image} into {@code target}, the channel of {@code file}, empty and as long as the image. */
    RawExport(NbdImage image, Path file, FileChannel target, Progress progress) {
        this.image = image;
        this.file = file;
        this.target = target;
        this.progress = progress;
    }

    /** The image's size, as its NBD server says. */
    static long size(NbdImage image) throws IOException {
        try (NbdClient client = NbdClient.connect(image.socketAddress(), image.name())) {
            return client.size();
        }
    }

    @Override
    public long run() throws IOException, InterruptedException {
        try (NbdClient status = NbdClient.withAllocation(image.socketAddress(), image.name())) {
            size = status.size();
            data = dataRanges(status);
        }
        onConnections(image, "export", this::copy, first -> { });
        try {
            target.force(false);
        } catch (IOException e) {
            throw TransferErrors.file("write", file, e);
        }
        return written.get();
    }

    private long[] dataRanges(NbdClient status) throws IOException {
        List<Long> ranges = new ArrayList<>();
        long offset = 0;
        while (offset < size) {
            List<Extent> extents = status.blockStatus(offset, (int) Math.min(STATUS_SPAN, size - offset));
            if (extents.isEmpty()) {
                throw new IOException("the NBD server described no extent at " + offset + " of image '" + image.name() + "'");
            }
            for (Extent extent : extents) {
                long end = Math.min(size, offset + extent.length());
                if (!extent.zero()) {
                    // In whole blocks, which the site's extents are anyway: the file is written a block at a time.
                    long start = offset / BLOCK * BLOCK;
                    long stop = Math.min(size, (end + BLOCK - 1) / BLOCK * BLOCK);
                    if (!ranges.isEmpty() && ranges.get(ranges.size() - 1) >= start) {
                        ranges.set(ranges.size() - 1, stop);
                    } else {
                        ranges.add(start);
                        ranges.add(stop);
                    }
                }
                offset = end;
            }
        }
        return ranges.stream().mapToLong(Long::longValue).toArray();
    }

    private void copy(NbdClient client) throws IOException {
        Deque<ByteBuffer> free = new ArrayDeque<>();
        for (int i = 0; i < DEPTH; i++) {
            free.add(ByteBuffer.allocateDirect(PIECE));
        }
        Deque<long[]> reads = new ArrayDeque<>();
        long pieces = (size + PIECE - 1) / PIECE;
        while (true) {
            if (reads.isEmpty()) {
                long piece = nextPiece.getAndIncrement();
                if (piece < pieces) {
                    reads.addAll(dataIn(piece * PIECE, Math.min(size, (piece + 1) * PIECE)));
                }
            }
            if (!reads.isEmpty() && !free.isEmpty()) {
                long[] range = reads.poll();
                client.read(range[0], free.poll().clear().limit((int) (range[1] - range[0])));
            } else if (client.inFlight() > 0) {
                free.add(store(client.receive()));
            } else if (reads.isEmpty() && nextPiece.get() >= pieces) {
                return;
            }
        }
    }

    /** The data ranges within {@code [start, end)}; the rest of it counts as done at once. */
    private List<long[]> dataIn(long start, long end) {
        List<long[]> ranges = new ArrayList<>();
        long covered = 0;
        int i = firstRangeEndingAfter(start);
        for (; i < data.length && data[i] < end; i += 2) {
            long from = Math.max(start, data[i]);
            long to = Math.min(end, data[i + 1]);
            ranges.add(new long[] {from, to});
            covered += to - from;
        }
        progress.add(end - start - covered);
        return ranges;
    }

    /** The index of the start of the first data range that ends after {@code offset}. */
    private int firstRangeEndingAfter(long offset) {
        int low = 0;
        int high = data.length / 2;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (data[2 * middle + 1] <= offset) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return 2 * low;
    }

    /** Writes what a READ returned to the file, runs of blocks that are not all zeros only; returns its buffer. */
    private ByteBuffer store(NbdClient.Request read) throws IOException {
        ByteBuffer buffer = read.buffer().flip();
        int length = buffer.remaining();
        int run = -1;
        for (int at = 0; at <= length; at += BLOCK) {
            boolean zero = at == length || RawImport.isZero(buffer, at);
            if (!zero && run < 0) {
                run = at;
            } else if (zero && run >= 0) {
                write(buffer.slice(run, at - run), read.offset() + run);
                run = -1;
            }
        }
        progress.add(length);
        return buffer;
    }

    private void write(ByteBuffer bytes, long position) {
        written.addAndGet(bytes.remaining());
        try {
            while (bytes.hasRemaining()) {
                position += target.write(bytes, position);
            }
        } catch (IOException e) {
            throw TransferErrors.file("write", file, e);
        }
    }
}
