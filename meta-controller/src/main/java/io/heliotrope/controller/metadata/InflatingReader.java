package io.heliotrope.controller.metadata;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/** Reads varints back from what {@link DeflatingWriter} wrote; damage is a {@code STORAGE_FAILURE}. */
final class InflatingReader implements AutoCloseable {
    private final Inflater inflater = new Inflater();
    private final byte[] buffer = new byte[1 << 16];
    private int position;
    private int limit;

    InflatingReader(byte[] data) {
        inflater.setInput(data);
    }

    long readVarint() {
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = readByte();
            value |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw corrupt("a varint longer than 64 bits");
    }

    byte[] readBytes(int count) {
        byte[] bytes = new byte[count];
        for (int i = 0; i < count; i++) {
            bytes[i] = (byte) readByte();
        }
        return bytes;
    }

    /** Fails unless everything was read and the stream's checksum holds. */
    void expectEnd() {
        if (position < limit || fill()) {
            throw corrupt("trailing bytes");
        }
    }

    private int readByte() {
        if (position == limit && !fill()) {
            throw corrupt("it ends early");
        }
        return buffer[position++] & 0xFF;
    }

    private boolean fill() {
        try {
            while (!inflater.finished()) {
                int count = inflater.inflate(buffer);
                if (count > 0) {
                    position = 0;
                    limit = count;
                    return true;
                }
                if (inflater.needsInput() || inflater.needsDictionary()) {
                    throw corrupt("the compressed stream is truncated");
                }
            }
            return false;
        } catch (DataFormatException e) {
            throw corrupt(e.getMessage());
        }
    }

    static HeliotropeException corrupt(String reason) {
        return new HeliotropeException(ErrorCode.STORAGE_FAILURE, "corrupt block metadata: " + reason);
    }

    @Override
    public void close() {
        inflater.end();
    }
}
