package io.heliotrope.it;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.WRITE;

/** Files of random data; random so that no block store can pass by compressing or deduplicating. */
final class TestData {
    private static final int CHUNK = 1 << 20;

    private TestData() {}

    static byte[] randomBytes(int length) {
        byte[] bytes = new byte[length];
        ThreadLocalRandom.current().nextBytes(bytes);
        return bytes;
    }

    /** A file of {@code size} bytes, all random. */
    static Path randomFile(Path file, long size) {
        return writeRandom(file, 0, size);
    }

    /** Writes {@code length} random bytes at {@code offset}, creating or extending the file as needed; the rest stays as it was. */
    static Path writeRandom(Path file, long offset, long length) {
        try (FileChannel channel = FileChannel.open(file, CREATE, WRITE)) {
            for (long done = 0; done < length; done += CHUNK) {
                ByteBuffer chunk = ByteBuffer.wrap(randomBytes((int) Math.min(CHUNK, length - done)));
                while (chunk.hasRemaining()) {
                    channel.write(chunk, offset + done + chunk.position());
                }
            }
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Makes the file exactly {@code size} bytes; growing it leaves a hole (ftruncate). */
    static Path truncate(Path file, long size) {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(size);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
