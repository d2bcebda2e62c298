package io.heliotrope.nbd;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A device in a byte array. Operations complete at once, or, when held, wait until
 * {@link #releaseHeld()} (or the end of a batch, with {@link #holdBatches()}) completes
 * them in reverse order of arrival (to prove replies leave out of order). Capabilities
 * are chosen at construction.
 */
public final class TestingBlockDevice implements BlockDevice {
    private final byte[] data;
    private final ByteBufAllocator allocator;
    private final boolean capable;
    private final boolean readOnly;
    private final List<Runnable> held = new ArrayList<>();
    private final AtomicInteger flushes = new AtomicInteger();
    private final AtomicInteger closes = new AtomicInteger();
    private final AtomicInteger batches = new AtomicInteger();
    private boolean holding;
    private boolean holdingBatches;

    public TestingBlockDevice(int size, ByteBufAllocator allocator, boolean capable, boolean readOnly) {
        this.data = new byte[size];
        this.allocator = allocator;
        this.capable = capable;
        this.readOnly = readOnly;
    }

    public byte[] data() {
        return data;
    }

    public int flushes() {
        return flushes.get();
    }

    public int closes() {
        return closes.get();
    }

    public synchronized void hold() {
        holding = true;
    }

    /** Holds the calls of each batch until it ends, as a device that runs a batch's writes together would. */
    public synchronized void holdBatches() {
        holdingBatches = true;
    }

    /** Batches ended. */
    public int batches() {
        return batches.get();
    }

    @Override
    public synchronized void startBatch() {
        holding |= holdingBatches;
    }

    @Override
    public void endBatch() {
        batches.incrementAndGet();
        boolean held;
        synchronized (this) {
            held = holdingBatches;
        }
        if (held) {
            releaseHeld();
        }
    }

    public synchronized int heldCount() {
        return held.size();
    }

    public void releaseHeld() {
        List<Runnable> pending;
        synchronized (this) {
            holding = false;
            pending = new ArrayList<>(held);
            held.clear();
        }
        for (int i = pending.size() - 1; i >= 0; i--) {
            pending.get(i).run();
        }
    }

    @Override
    public long size() {
        return data.length;
    }

    @Override
    public boolean isReadOnly() {
        return readOnly;
    }

    @Override
    public boolean canTrim() {
        return capable;
    }

    @Override
    public boolean canZero() {
        return capable;
    }

    @Override
    public boolean canFua() {
        return capable;
    }

    @Override
    public boolean canCache() {
        return capable;
    }

    @Override
    public boolean canMultiConn() {
        return capable;
    }

    @Override
    public CompletableFuture<ByteBuf> read(long offset, int length) {
        return later(() -> allocator.buffer(length).writeBytes(data, (int) offset, length));
    }

    @Override
    public CompletableFuture<Void> write(long offset, ByteBuf buffer, boolean fua) {
        buffer.retain();
        return later(() -> {
            try {
                buffer.getBytes(buffer.readerIndex(), data, (int) offset, buffer.readableBytes());
            } finally {
                buffer.release();
            }
            return null;
        });
    }

    @Override
    public CompletableFuture<Void> flush() {
        return later(() -> {
            flushes.incrementAndGet();
            return null;
        });
    }

    @Override
    public CompletableFuture<Void> trim(long offset, long length, boolean fua) {
        return writeZeroes(offset, length, fua, true);
    }

    @Override
    public CompletableFuture<Void> writeZeroes(long offset, long length, boolean fua, boolean mayTrim) {
        return later(() -> {
            java.util.Arrays.fill(data, (int) offset, (int) (offset + length), (byte) 0);
            return null;
        });
    }

    @Override
    public CompletableFuture<Void> cache(long offset, long length) {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<List<Extent>> blockStatus(long offset, long length) {
        List<Extent> extents = new ArrayList<>();
        for (long at = offset; at < offset + length; ) {
            long end = Math.min(offset + length, (at / 4096 + 1) * 4096);
            boolean zero = true;
            for (long i = at; i < end && zero; i++) {
                zero = data[(int) i] == 0;
            }
            extents.add(zero ? Extent.zeroHole(end - at) : Extent.data(end - at));
            at = end;
        }
        return CompletableFuture.completedFuture(extents);
    }

    @Override
    public void close() {
        closes.incrementAndGet();
    }

    private interface Action<T> {
        T run();
    }

    private synchronized <T> CompletableFuture<T> later(Action<T> action) {
        CompletableFuture<T> future = new CompletableFuture<>();
        Runnable complete = () -> {
            try {
                future.complete(action.run());
            } catch (RuntimeException e) {
                future.completeExceptionally(e);
            }
        };
        if (holding) {
            held.add(complete);
        } else {
            complete.run();
        }
        return future;
    }
}
