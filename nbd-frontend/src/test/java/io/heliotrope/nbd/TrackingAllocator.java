package io.heliotrope.nbd;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Remembers every buffer it hands out, so a test can prove each one was released. */
public final class TrackingAllocator extends AbstractByteBufAllocator {
    private final List<ByteBuf> allocated = new ArrayList<>();

    public TrackingAllocator() {
        super(false);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return false;
    }

    @Override
    protected synchronized ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        ByteBuf buffer = new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity);
        allocated.add(buffer);
        return buffer;
    }

    @Override
    protected synchronized ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        ByteBuf buffer = new UnpooledDirectByteBuf(this, initialCapacity, maxCapacity);
        allocated.add(buffer);
        return buffer;
    }

    public synchronized int allocations() {
        return allocated.size();
    }

    public synchronized void assertAllReleased() {
        assertThat(allocated).allSatisfy(buffer -> assertThat(buffer.refCnt()).as("reference count of %s", buffer).isZero());
        allocated.clear();
    }
}
