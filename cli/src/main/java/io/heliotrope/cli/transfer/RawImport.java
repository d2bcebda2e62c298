package io.heliotrope.cli.transfer;

import io.heliotrope.cli.print.Progress;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.client.NbdClient;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A raw file written into a new image over NBD. The file is mapped, not read: a WRITE's
 * payload goes from the page cache to the socket in one copy. Threads, each with a
 * connection of its own and several requests in flight, take the file a piece at a
 * time; blocks of zeros are not sent, as the new image reads as zeros already. A FLUSH
 * at the end makes it all durable.
 */
final class RawImport extends ParallelCopy {
    static final int BLOCK = 4096;
    /** As many bytes in flight on each connection as nbdcopy has (64 requests of 256 KiB). */
    static final int DEPTH = 16;
    /**
     * A request's payload at most: a whole group of the site's block store (1 MiB), which it
     * indexes with one entry instead of one per block, and no more than its NBD decoder
     * sizes a payload buffer for at once. A power of two, at most {@link #WINDOW}, so that
     * no piece spans two windows.
     */
    static final int PIECE = 1 << 20;
    private static final long WINDOW = 1L << 30;

    private final Path file;
    private final long fileSize;
    private final NbdImage image;
    private final Progress progress;
    private final MappedByteBuffer[] windows;
    private final AtomicLong nextPiece = new AtomicLong();
    private final AtomicLong sent = new AtomicLong();

    /** Writes the first {@code fileSize} bytes of {@code file} into {@code image}, which reads as zeros. */
    RawImport(Path file, long fileSize, NbdImage image, Progress progress) {
        this.file = file;
        this.fileSize = fileSize;
        this.image = image;
        this.progress = progress;
        this.windows = new MappedByteBuffer[(int) ((fileSize + WINDOW - 1) / WINDOW)];
    }

    @Override
    public long run() throws IOException, InterruptedException {
        try (FileChannel source = FileChannel.open(file, StandardOpenOption.READ)) {
            for (int i = 0; i < windows.length; i++) {
                windows[i] = source.map(FileChannel.MapMode.READ_ONLY, i * WINDOW, Math.min(WINDOW, fileSize - i * WINDOW));
            }
        } catch (IOException e) {
            throw TransferErrors.file("read", file, e);
        }
        onConnections(image, "import", this::copy, first -> {
            first.flush();
            first.receive();
        });
        return sent.get();
    }

    private void copy(NbdClient client) throws IOException {
        long pieces = (fileSize + PIECE - 1) / PIECE;
        try {
            for (long piece; (piece = nextPiece.getAndIncrement()) < pieces; ) {
                piece(client, piece * PIECE);
            }
        } catch (InternalError e) {
            // What the JVM raises for a fault on a mapped page: the file was cut short, or its disk failed.
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "cannot read " + file + ": " + e.getMessage() + " (did it change meanwhile?)");
        }
        while (client.inFlight() > 0) {
            progress.add(client.receive().length());
        }
    }

    /** Sends the runs of data blocks of the piece at {@code start}; a last block the file ends inside goes padded with zeros. */
    private void piece(NbdClient client, long start) throws IOException {
        ByteBuffer window = windows[(int) (start / WINDOW)];
        int base = (int) (start % WINDOW);
        int length = (int) Math.min(PIECE, fileSize - start);
        int blocks = length / BLOCK;
        int run = -1;
        for (int block = 0; block <= blocks; block++) {
            boolean data = block < blocks && !isZero(window, base + block * BLOCK);
            if (data && run < 0) {
                run = block;
            } else if (!data && run >= 0) {
                send(client, start + (long) run * BLOCK, window.slice(base + run * BLOCK, (block - run) * BLOCK));
                run = -1;
            }
            if (!data && block < blocks) {
                progress.add(BLOCK);
            }
        }
        int tail = length % BLOCK;
        if (tail > 0) {
            ByteBuffer last = ByteBuffer.allocateDirect(BLOCK);
            last.put(window.slice(base + blocks * BLOCK, tail)).clear();
            if (isZero(last, 0)) {
                progress.add(BLOCK);
            } else {
                send(client, start + (long) blocks * BLOCK, last);
            }
        }
    }

    private void send(NbdClient client, long offset, ByteBuffer data) throws IOException {
        while (client.inFlight() >= DEPTH) {
            progress.add(client.receive().length());
        }
        sent.addAndGet(data.remaining());
        client.write(offset, data);
    }

    /**
     * Whether the block at {@code offset} of {@code buffer} is all zeros: a long at a time, and
     * data usually differs in the first (as fast as {@code ByteBuffer.mismatch} on the CLI's
     * C1-compiled code, without a slice per block).
     */
    static boolean isZero(ByteBuffer buffer, int offset) {
        for (int at = offset; at < offset + BLOCK; at += Long.BYTES) {
            if (buffer.getLong(at) != 0) {
                return false;
            }
        }
        return true;
    }
}
