package io.heliotrope.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.heliotrope.it.Tools.ok;

/**
 * What the records guest ({@link RecordGuest}) wrote and acknowledged. Record n is block n of
 * its disk: the text {@code "n nonce sha256hex\n"}, NUL-padded to {@value #BLOCK_SIZE} bytes,
 * where sha256hex is the SHA-256 of {@code "n nonce"}; {@code HELIO-REC n} on its console
 * says record n was on the disk (written with O_DIRECT and fsync) before it was printed.
 */
final class Records {
    static final int BLOCK_SIZE = 4096;
    /** A whole console line (the serial console ends lines with CR LF); a line still being printed has no LF yet. */
    private static final Pattern ACKNOWLEDGED = Pattern.compile("^HELIO-REC (\\d+)\\r?\\n", Pattern.MULTILINE);

    private Records() {}

    /**
     * The largest n of a complete {@code HELIO-REC n} line in any of these console logs (the
     * source's and the destination's after a migration), or -1 when there is none yet. A log
     * that does not exist yet counts as empty.
     */
    static long lastAcknowledged(Path... consoleLogs) {
        return lastAcknowledged(List.of(consoleLogs));
    }

    static long lastAcknowledged(Collection<Path> consoleLogs) {
        long last = -1;
        for (Path log : consoleLogs) {
            last = Math.max(last, lastAcknowledged(read(log)));
        }
        return last;
    }

    /** The largest n of a complete {@code HELIO-REC n} line in console output, or -1. */
    static long lastAcknowledged(CharSequence console) {
        long last = -1;
        Matcher matcher = ACKNOWLEDGED.matcher(console);
        while (matcher.find()) {
            last = Math.max(last, Long.parseLong(matcher.group(1)));
        }
        return last;
    }

    /** Waits until record {@code n} (or a later one) is acknowledged in one of the logs; returns the last acknowledged. */
    static long awaitAcknowledged(long n, Duration timeout, Path... consoleLogs) {
        Await.until("HELIO-REC " + n + " in " + List.of(consoleLogs), timeout, () -> lastAcknowledged(consoleLogs) >= n);
        return lastAcknowledged(consoleLogs);
    }

    /** The text of record {@code n} for {@code nonce}, without its NUL padding. */
    static String record(long n, String nonce) {
        String body = n + " " + nonce;
        try {
            byte[] sum = MessageDigest.getInstance("SHA-256").digest(body.getBytes(StandardCharsets.US_ASCII));
            return body + " " + HexFormat.of().formatHex(sum) + "\n";
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /** Asserts that the raw disk image {@code disk} holds records 0..{@code last} of {@code nonce}; names the first bad one. */
    static void verify(Path disk, String nonce, long last) {
        try (FileChannel channel = FileChannel.open(disk)) {
            for (long n = 0; n <= last; n++) {
                checkBlock(readBlock(channel, n), n, nonce, last, disk.toString());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + disk, e);
        }
    }

    /**
     * Asserts that the NBD export at {@code uri} ({@code nbd://HOST:PORT/EXPORT}) holds records
     * 0..{@code last} of {@code nonce}: its first blocks are copied with {@code qemu-img dd} into
     * {@code scratch}, a file this call overwrites, then checked like a disk image.
     */
    static void verifyNbd(String uri, String nonce, long last, Path scratch) {
        try {
            Files.deleteIfExists(scratch);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + scratch, e);
        }
        ok("qemu-img", "dd", "-f", "raw", "-O", "raw", "bs=" + BLOCK_SIZE, "count=" + (last + 1),
                "if=" + uri, "of=" + scratch);
        verify(scratch, nonce, last);
    }

    /** Block n, or less when the file ends in it. */
    private static ByteBuffer readBlock(FileChannel channel, long n) throws IOException {
        ByteBuffer block = ByteBuffer.allocate(BLOCK_SIZE);
        while (block.hasRemaining()) {
            if (channel.read(block, n * BLOCK_SIZE + block.position()) < 0) {
                break;
            }
        }
        return block.flip();
    }

    private static void checkBlock(ByteBuffer block, long n, String nonce, long last, String source) {
        String expected = record(n, nonce);
        byte[] bytes = new byte[block.remaining()];
        block.get(bytes);
        int end = 0;
        while (end < bytes.length && bytes[end] != 0) {
            end++;
        }
        String found = new String(bytes, 0, end, StandardCharsets.US_ASCII);
        String where = "record %d of 0..%d (bytes %d..%d of %s)".formatted(n, last, n * BLOCK_SIZE, (n + 1) * BLOCK_SIZE - 1, source);
        if (bytes.length < BLOCK_SIZE) {
            throw new AssertionError(where + ": the disk ends after " + bytes.length + " bytes of it");
        }
        if (!found.equals(expected)) {
            throw new AssertionError("%s: expected %s but found %s".formatted(where, quote(expected),
                    end == 0 ? "no record (it starts with a NUL)" : quote(found)));
        }
        for (int i = end; i < bytes.length; i++) {
            if (bytes[i] != 0) {
                throw new AssertionError("%s: the record is right but its padding has byte 0x%02x at offset %d".formatted(where, bytes[i], i));
            }
        }
    }

    private static String quote(String text) {
        return '"' + text.replace("\n", "\\n") + '"';
    }

    private static String read(Path log) {
        try {
            return Files.exists(log) ? new String(Files.readAllBytes(log), StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + log, e);
        }
    }
}
