package io.heliotrope.nbd.codec;

import io.heliotrope.nbd.TrackingAllocator;
import io.heliotrope.nbd.protocol.NbdCommand;
import io.heliotrope.nbd.protocol.NbdRequest;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.heliotrope.nbd.protocol.NbdConstants.MAX_PAYLOAD;
import static io.heliotrope.nbd.protocol.NbdConstants.REQUEST_MAGIC;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestNbdRequestDecoder {
    private final TrackingAllocator allocator = new TrackingAllocator();
    private final EmbeddedChannel channel = new EmbeddedChannel(new NbdRequestDecoder());

    @BeforeEach
    void allocatePayloadsFromTheTrackingAllocator() {
        channel.config().setAllocator(allocator);
    }

    @AfterEach
    void releaseEverything() {
        channel.finishAndReleaseAll();
        allocator.assertAllReleased();
    }

    private ByteBuf header(int flags, NbdCommand command, long handle, long offset, long length) {
        return allocator.buffer().writeInt(REQUEST_MAGIC).writeShort(flags).writeShort(command.wireValue())
                .writeLong(handle).writeLong(offset).writeInt((int) length);
    }

    private void feedOneByteAtATime(ByteBuf bytes) {
        while (bytes.isReadable()) {
            channel.writeInbound(bytes.readRetainedSlice(1));
        }
        bytes.release();
    }

    @Test
    void decodesAWriteSplitAtEveryByte() {
        ByteBuf frame = header(1, NbdCommand.WRITE, 42, 8192, 5).writeBytes(new byte[] {1, 2, 3, 4, 5});
        feedOneByteAtATime(frame);
        NbdRequest request = channel.readInbound();
        assertThat(request.command()).contains(NbdCommand.WRITE);
        assertThat(request.handle()).isEqualTo(42);
        assertThat(request.offset()).isEqualTo(8192);
        assertThat(request.flags()).isEqualTo(1);
        assertThat(request.payload().readableBytes()).isEqualTo(5);
        assertThat(request.payload().getByte(4)).isEqualTo((byte) 5);
        request.release();
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void decodesAZeroLengthWriteWithoutWaitingForMoreBytes() {
        channel.writeInbound(header(0, NbdCommand.WRITE, 7, 0, 0));
        NbdRequest request = channel.readInbound();
        assertThat(request.payload().readableBytes()).isZero();
        request.release();
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void decodesBackToBackRequestsInOneBuffer() {
        ByteBuf both = header(0, NbdCommand.READ, 1, 0, 4096);
        ByteBuf flush = header(0, NbdCommand.FLUSH, 2, 0, 0);
        both.writeBytes(flush);
        flush.release();
        channel.writeInbound(both);
        NbdRequest read = channel.readInbound();
        NbdRequest flushRequest = channel.readInbound();
        assertThat(read.command()).contains(NbdCommand.READ);
        assertThat(read.payload()).isNull();
        assertThat(flushRequest.command()).contains(NbdCommand.FLUSH);
        read.release();
        flushRequest.release();
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void skipsAnOversizedWritePayloadWithoutBufferingIt() {
        long hostile = 0xFFFF_FFFFL;
        channel.writeInbound(header(0, NbdCommand.WRITE, 9, 0, hostile));
        NbdRequest request = channel.readInbound();
        assertThat(request.length()).isEqualTo(hostile);
        assertThat(request.payload()).isNull();
        request.release();
        // the payload streams past in pieces and is dropped, then framing resumes
        ByteBuf piece = allocator.buffer(1 << 20).writerIndex(1 << 20);
        for (long sent = 0; sent < hostile; ) {
            int length = (int) Math.min(piece.capacity(), hostile - sent);
            channel.writeInbound(piece.retainedSlice(0, length));
            sent += length;
            if (sent == MAX_PAYLOAD) {
                assertThat(channel.<NbdRequest>readInbound()).isNull();
            }
        }
        piece.release();
        channel.writeInbound(header(0, NbdCommand.FLUSH, 10, 0, 0));
        NbdRequest next = channel.readInbound();
        assertThat(next.handle()).isEqualTo(10);
        next.release();
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void collectsAPayloadLargerThanItsFirstBufferFromManyReadsAndDecodesTheRequestAfterIt() {
        int length = 3 * NbdRequestDecoder.PRESIZE_BYTES + 1;
        ByteBuf stream = header(0, NbdCommand.WRITE, 7, 0, length);
        for (int i = 0; i < length; i++) {
            stream.writeByte(i % 251);
        }
        ByteBuf next = header(0, NbdCommand.FLUSH, 8, 0, 0);
        stream.writeBytes(next);
        next.release();
        while (stream.isReadable()) {
            channel.writeInbound(stream.readRetainedSlice(Math.min(stream.readableBytes(), 65_000)));
        }
        stream.release();
        NbdRequest write = channel.readInbound();
        assertThat(write.payload().readableBytes()).isEqualTo(length);
        for (int i = 0; i < length; i += 4093) {
            assertThat(write.payload().getByte(i)).isEqualTo((byte) (i % 251));
        }
        write.release();
        NbdRequest flush = channel.readInbound();
        assertThat(flush.command()).contains(NbdCommand.FLUSH);
        assertThat(flush.handle()).isEqualTo(8);
    }

    /** A channel whose reads, like a socket's, take their buffers from a {@link PayloadReceiveAllocator}. */
    private EmbeddedChannel channelReadingInto(PayloadReceiveAllocator reads) {
        EmbeddedChannel lending = new EmbeddedChannel();
        lending.config().setAllocator(allocator);
        lending.config().setRecvByteBufAllocator(reads);
        lending.pipeline().addLast(new NbdRequestDecoder());
        return lending;
    }

    @Test
    void readsTheRestOfAPayloadStraightIntoItsBufferAndAllocateNothingMore() {
        PayloadReceiveAllocator reads = new PayloadReceiveAllocator();
        EmbeddedChannel lending = channelReadingInto(reads);
        var handle = reads.newHandle();
        ByteBuf between = handle.allocate(allocator);
        assertThat(between.capacity()).as("no payload yet: a buffer of the usual size").isLessThan(NbdRequestDecoder.PRESIZE_BYTES);
        between.release();

        int length = 2 * NbdRequestDecoder.PRESIZE_BYTES + 3;
        lending.writeInbound(header(0, NbdCommand.WRITE, 5, 0, length).writeBytes(new byte[] {0, 1, 2}));
        int allocations = allocator.allocations();
        int written = 3;
        while (written < length) {
            ByteBuf room = handle.allocate(allocator);
            assertThat(room.writableBytes()).as("room within the rest of the payload").isBetween(1, length - written);
            if (written < NbdRequestDecoder.PRESIZE_BYTES) {
                assertThat(room.writableBytes()).as("room up to the end of the first buffer").isEqualTo(NbdRequestDecoder.PRESIZE_BYTES - written);
            }
            int chunk = Math.min(room.writableBytes(), 65_000);
            for (int i = 0; i < chunk; i++) {
                room.writeByte((written + i) % 251);
            }
            written += chunk;
            lending.writeInbound(room);
        }
        assertThat(allocator.allocations()).as("buffers allocated while the payload came").isEqualTo(allocations);
        NbdRequest write = lending.readInbound();
        assertThat(write.payload().readableBytes()).isEqualTo(length);
        for (int i = 0; i < length; i += 997) {
            assertThat(write.payload().getByte(i)).isEqualTo((byte) (i % 251));
        }
        write.release();
        ByteBuf after = handle.allocate(allocator);
        assertThat(after.capacity()).as("payload complete: a buffer of the usual size again").isLessThan(NbdRequestDecoder.PRESIZE_BYTES);
        after.release();
        assertThat(lending.finish()).isFalse();
    }

    @Test
    void aConnectionThatClosesWhileAReadHoldsPartOfThePayloadFreesBoth() {
        PayloadReceiveAllocator reads = new PayloadReceiveAllocator();
        EmbeddedChannel lending = channelReadingInto(reads);
        lending.writeInbound(header(0, NbdCommand.WRITE, 9, 0, 1 << 20).writeZero(100));
        ByteBuf room = reads.newHandle().allocate(allocator);
        lending.close();
        room.release();
        // releaseEverything checks the payload was released by the handler and by the read
    }

    @Test
    void aConnectionThatClosesMidPayloadFreesIt() {
        channel.writeInbound(header(0, NbdCommand.WRITE, 9, 0, 1 << 20).writeZero(100_000));
        assertThat(channel.<NbdRequest>readInbound()).isNull();
        channel.close();
        // releaseEverything checks that the partial payload was released with the handler
    }

    @Test
    void failsOnBadMagicAndDropsWhatFollows() {
        ByteBuf bad = allocator.buffer().writeInt(0x12345678).writeZero(24);
        assertThatThrownBy(() -> channel.writeInbound(bad))
                .isInstanceOf(DecoderException.class)
                .hasMessageContaining("bad request magic 0x12345678");
        channel.writeInbound(header(0, NbdCommand.FLUSH, 1, 0, 0));
        assertThat(channel.<NbdRequest>readInbound()).isNull();
        assertThat(channel.finish()).isFalse();
    }
}
