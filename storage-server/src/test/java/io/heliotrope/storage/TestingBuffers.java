package io.heliotrope.storage;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.util.Arrays;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;

/** Payloads for device tests: whole blocks of one byte, and what a device returned as bytes. */
public final class TestingBuffers {
    private TestingBuffers() {}

    /** {@code blocks} whole blocks, every byte {@code value}. */
    public static ByteBuf filled(int blocks, int value) {
        byte[] data = new byte[blocks * BLOCK_SIZE];
        Arrays.fill(data, (byte) value);
        return Unpooled.wrappedBuffer(data);
    }

    /** The readable bytes of {@code buffer}, which is released. */
    public static byte[] bytes(ByteBuf buffer) {
        try {
            byte[] bytes = new byte[buffer.readableBytes()];
            buffer.readBytes(bytes);
            return bytes;
        } finally {
            buffer.release();
        }
    }
}
