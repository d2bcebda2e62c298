package io.heliotrope.controller.metadata;

import java.util.Arrays;
import java.util.zip.Deflater;

/** Writes varints through a zlib deflater into a growing array, 64 KB at a time. */
final class DeflatingWriter implements AutoCloseable {
    private static final int MAX_VARINT = 10;

    private final Deflater deflater;
    private final byte[] buffer = new byte[1 << 16];
    private int position;
    private byte[] output = new byte[1 << 12];
    private int length;

    DeflatingWriter(int level) {
        this.deflater = new Deflater(level);
    }

    /** Unsigned LEB128: seven bits a byte, low bits first. */
    void writeVarint(long value) {
        if (position > buffer.length - MAX_VARINT) {
            drain();
        }
        long rest = value;
        while ((rest & ~0x7FL) != 0) {
            buffer[position++] = (byte) ((rest & 0x7F) | 0x80);
            rest >>>= 7;
        }
        buffer[position++] = (byte) rest;
    }

    void writeBytes(byte[] bytes) {
        for (byte b : bytes) {
            if (position == buffer.length) {
                drain();
            }
            buffer[position++] = b;
        }
    }

    byte[] finish() {
        drain();
        deflater.finish();
        while (!deflater.finished()) {
            deflate();
        }
        return Arrays.copyOf(output, length);
    }

    private void drain() {
        deflater.setInput(buffer, 0, position);
        while (!deflater.needsInput()) {
            deflate();
        }
        position = 0;
    }

    private void deflate() {
        if (length == output.length) {
            output = Arrays.copyOf(output, output.length * 2);
        }
        length += deflater.deflate(output, length, output.length - length);
    }

    @Override
    public void close() {
        deflater.end();
    }
}
