package io.heliotrope.nbd.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;

/**
 * Gives a connection's socket reads their buffers. While the connection's
 * {@link NbdRequestDecoder} is collecting a WRITE payload, a read gets the payload's
 * remaining room, so the bytes land where the device will take them from and the
 * decoder copies nothing; otherwise a read gets a buffer sized as
 * {@link AdaptiveRecvByteBufAllocator} sizes them. One instance per connection, used
 * on its event loop only.
 */
public final class PayloadReceiveAllocator implements RecvByteBufAllocator {
    private final RecvByteBufAllocator sizes = new AdaptiveRecvByteBufAllocator();
    private NbdRequestDecoder decoder;

    /** Lets {@code decoder} lend its payload's room to the reads from now on. */
    void lendTo(NbdRequestDecoder decoder) {
        this.decoder = decoder;
    }

    @Override
    public ExtendedHandle newHandle() {
        return new LendingHandle((ExtendedHandle) sizes.newHandle());
    }

    private final class LendingHandle extends DelegatingHandle implements ExtendedHandle {
        LendingHandle(ExtendedHandle delegate) {
            super(delegate);
        }

        @Override
        public ByteBuf allocate(ByteBufAllocator allocator) {
            ByteBuf room = decoder == null ? null : decoder.payloadRoom();
            return room != null ? room : super.allocate(allocator);
        }

        @Override
        public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
            return ((ExtendedHandle) delegate()).continueReading(maybeMoreDataSupplier);
        }
    }
}
