package io.heliotrope.nbd.server;

import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.nbd.NbdConversation;
import io.heliotrope.nbd.TestingBlockDevice;
import io.heliotrope.nbd.TestingExportCatalog;
import io.heliotrope.nbd.TestingMetaContext;
import io.heliotrope.nbd.TrackingAllocator;
import io.heliotrope.nbd.protocol.NbdCommand;
import io.heliotrope.nbd.protocol.NbdError;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static io.heliotrope.nbd.protocol.NbdConstants.CMD_FLAG_FUA;
import static io.heliotrope.nbd.protocol.NbdConstants.CMD_FLAG_REQ_ONE;
import static io.heliotrope.nbd.protocol.NbdConstants.FLAG_FIXED_NEWSTYLE;
import static io.heliotrope.nbd.protocol.NbdConstants.FLAG_NO_ZEROES;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_GO;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_SET_META_CONTEXT;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_STRUCTURED_REPLY;
import static io.heliotrope.nbd.protocol.NbdConstants.REPLY_FLAG_DONE;
import static io.heliotrope.nbd.protocol.NbdConstants.REPLY_TYPE_BLOCK_STATUS;
import static io.heliotrope.nbd.protocol.NbdConstants.REPLY_TYPE_ERROR;
import static io.heliotrope.nbd.protocol.NbdConstants.REPLY_TYPE_OFFSET_DATA;
import static io.heliotrope.nbd.protocol.NbdConstants.SIMPLE_REPLY_MAGIC;
import static io.heliotrope.nbd.protocol.NbdConstants.STATE_HOLE;
import static io.heliotrope.nbd.protocol.NbdConstants.STATE_ZERO;
import static io.heliotrope.nbd.protocol.NbdConstants.STRUCTURED_REPLY_MAGIC;
import static org.assertj.core.api.Assertions.assertThat;

class TestNbdTransmissionHandler {
    private static final int SIZE = 1 << 20;

    private final TrackingAllocator allocator = new TrackingAllocator();
    private final TestingBlockDevice capable = new TestingBlockDevice(SIZE, allocator, true, false);
    private final TestingBlockDevice plain = new TestingBlockDevice(SIZE, allocator, false, false);
    private final TestingBlockDevice readOnly = new TestingBlockDevice(SIZE, allocator, false, true);
    private final NbdConversation conversation = new NbdConversation(
            new TestingExportCatalog(Map.<String, BlockDevice>of("capable", capable, "plain", plain, "ro", readOnly)),
            List.of(new BaseAllocation(), new TestingMetaContext("testing:all", 0x5)), allocator);

    /** A decoded reply: simple ones have type -1 and no flags. */
    record Reply(long handle, int flags, int type, int error, byte[] payload) {}

    @AfterEach
    void close() {
        conversation.close();
        allocator.assertAllReleased();
    }

    private void open(String export, boolean structured) {
        open(export, structured, "base:allocation");
    }

    private void open(String export, boolean structured, String... contexts) {
        conversation.received().release();
        conversation.send(conversation.clientFlags(FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES));
        if (structured) {
            conversation.send(conversation.option(OPT_STRUCTURED_REPLY, conversation.empty()));
            conversation.send(conversation.option(OPT_SET_META_CONTEXT, conversation.metaContextData(export, contexts)));
        }
        conversation.send(conversation.option(OPT_GO, conversation.goData(export)));
        conversation.received().release();
    }

    private void send(int flags, NbdCommand command, long handle, long offset, long length, byte[] payload) {
        conversation.send(conversation.request(flags, command.wireValue(), handle, offset, length, payload), 7);
    }

    /** Decodes replies; a simple reply to a read carries {@code readLength} bytes when it succeeded. */
    private List<Reply> replies(int readLength) {
        ByteBuf bytes = conversation.received();
        List<Reply> replies = new ArrayList<>();
        while (bytes.isReadable()) {
            int magic = bytes.readInt();
            if (magic == SIMPLE_REPLY_MAGIC) {
                int error = bytes.readInt();
                long handle = bytes.readLong();
                byte[] data = new byte[error == 0 && bytes.readableBytes() >= readLength ? readLength : 0];
                bytes.readBytes(data);
                replies.add(new Reply(handle, 0, -1, error, data));
            } else {
                assertThat(magic).isEqualTo(STRUCTURED_REPLY_MAGIC);
                int flags = bytes.readUnsignedShort();
                int type = bytes.readUnsignedShort();
                long handle = bytes.readLong();
                byte[] payload = new byte[bytes.readInt()];
                bytes.readBytes(payload);
                int error = type == REPLY_TYPE_ERROR ? ByteBuffer.wrap(payload).getInt() : 0;
                replies.add(new Reply(handle, flags, type, error, payload));
            }
        }
        bytes.release();
        return replies;
    }

    @Test
    void repliesLeaveInTheOrderRequestsComplete() {
        open("capable", false);
        capable.hold();
        for (long handle = 1; handle <= 3; handle++) {
            send(0, NbdCommand.READ, handle, 4096 * handle, 4096, null);
        }
        assertThat(replies(4096)).isEmpty();
        assertThat(capable.heldCount()).isEqualTo(3);
        capable.releaseHeld();
        assertThat(replies(4096)).extracting(Reply::handle).containsExactly(3L, 2L, 1L);
    }

    @Test
    void eachReadBurstIsOneBatchAndTheWritesItHeldReplyWhenItEnds() {
        open("capable", false);
        capable.holdBatches();
        ByteBuf burst = allocator.buffer();
        for (long handle = 1; handle <= 3; handle++) {
            ByteBuf request = conversation.request(0, NbdCommand.WRITE.wireValue(), handle, 4096 * handle, 4096, new byte[4096]);
            burst.writeBytes(request);
            request.release();
        }
        conversation.send(burst);
        assertThat(capable.batches()).isEqualTo(1);
        assertThat(replies(0)).extracting(Reply::handle).containsExactly(3L, 2L, 1L);
        send(0, NbdCommand.WRITE, 4, 0, 4096, new byte[4096]);
        assertThat(capable.batches()).as("pieces that end no request start no batch").isEqualTo(2);
        assertThat(replies(0)).extracting(Reply::handle).containsExactly(4L);
    }

    @Test
    void writesThenReadsBackWithStructuredReplies() {
        open("capable", true);
        byte[] data = new byte[5000];
        Arrays.fill(data, (byte) 0x5a);
        send(CMD_FLAG_FUA, NbdCommand.WRITE, 1, 4097, data.length, data);
        send(0, NbdCommand.READ, 2, 4097, data.length, null);
        List<Reply> replies = replies(0);
        assertThat(replies.get(0).error()).isZero();
        Reply read = replies.get(1);
        assertThat(read.type()).isEqualTo(REPLY_TYPE_OFFSET_DATA);
        assertThat(ByteBuffer.wrap(read.payload()).getLong()).isEqualTo(4097);
        assertThat(Arrays.copyOfRange(read.payload(), 8, read.payload().length)).isEqualTo(data);
        assertThat(capable.flushes()).isZero();
    }

    @Test
    void emulatesFuaAndWriteZeroesForAPlainDevice() {
        open("plain", false);
        byte[] ones = new byte[8192];
        Arrays.fill(ones, (byte) 1);
        send(CMD_FLAG_FUA, NbdCommand.WRITE, 1, 0, ones.length, ones);
        send(0, NbdCommand.WRITE_ZEROES, 2, 100, 5000, null);
        assertThat(replies(0)).extracting(Reply::error).containsExactly(0, 0);
        assertThat(plain.flushes()).isEqualTo(1);
        assertThat(plain.data()[99]).isEqualTo((byte) 1);
        assertThat(Arrays.copyOfRange(plain.data(), 100, 5100)).containsOnly(0);
        assertThat(plain.data()[5100]).isEqualTo((byte) 1);
    }

    @Test
    void answersInvalidRequestsWithTheSpecsErrorsAndKeepsServing() {
        open("plain", false);
        send(0, NbdCommand.READ, 1, SIZE - 10, 20, null);
        send(0, NbdCommand.WRITE, 2, SIZE - 1, 2, new byte[2]);
        send(0, NbdCommand.READ, 3, -4096, 4096, null);
        send(0, NbdCommand.TRIM, 4, 0, 4096, null);
        send(CMD_FLAG_REQ_ONE, NbdCommand.READ, 5, 0, 4096, null);
        send(0, NbdCommand.BLOCK_STATUS, 6, 0, 4096, null);
        conversation.send(conversation.request(0, 99, 7, 0, 0, null));
        send(0, NbdCommand.FLUSH, 8, 4096, 0, null);
        send(0, NbdCommand.READ, 9, 0, 64L << 20, null);
        send(0, NbdCommand.READ, 10, 0, 4096, null);
        List<Reply> replies = replies(4096);
        assertThat(replies).extracting(Reply::error).containsExactly(
                NbdError.EINVAL.wireValue(), NbdError.ENOSPC.wireValue(), NbdError.EINVAL.wireValue(), NbdError.EINVAL.wireValue(),
                NbdError.EINVAL.wireValue(), NbdError.EINVAL.wireValue(), NbdError.EINVAL.wireValue(), NbdError.EINVAL.wireValue(),
                NbdError.EINVAL.wireValue(), 0);
        assertThat(replies.get(9).payload()).hasSize(4096);
    }

    @Test
    void refusesWritesToAReadOnlyExport() {
        open("ro", true);
        send(0, NbdCommand.WRITE, 1, 0, 4, new byte[] {1, 2, 3, 4});
        send(0, NbdCommand.READ, 2, 0, SIZE + 1, null);
        List<Reply> replies = replies(0);
        assertThat(replies.get(0).error()).isEqualTo(NbdError.EPERM.wireValue());
        assertThat(replies.get(1).type()).isEqualTo(REPLY_TYPE_ERROR);
        assertThat(replies.get(1).error()).isEqualTo(NbdError.EINVAL.wireValue());
        assertThat(readOnly.data()).containsOnly(0);
    }

    @Test
    void reportsBlockStatusOfTheSelectedContext() {
        open("capable", true);
        send(0, NbdCommand.WRITE, 1, 8192, 4096, new byte[4096]);
        byte[] data = new byte[4096];
        data[0] = 1;
        send(0, NbdCommand.WRITE, 2, 4096, 4096, data);
        send(0, NbdCommand.BLOCK_STATUS, 3, 0, 16384, null);
        send(CMD_FLAG_REQ_ONE, NbdCommand.BLOCK_STATUS, 4, 4096, 16384, null);
        List<Reply> replies = replies(0);
        ByteBuffer status = ByteBuffer.wrap(replies.get(2).payload());
        assertThat(replies.get(2).type()).isEqualTo(REPLY_TYPE_BLOCK_STATUS);
        assertThat(status.getInt()).as("the id of the first context offered").isEqualTo(1);
        assertThat(new int[] {status.getInt(), status.getInt(), status.getInt(), status.getInt(), status.getInt(), status.getInt()})
                .containsExactly(4096, STATE_HOLE | STATE_ZERO, 4096, 0, 8192, STATE_HOLE | STATE_ZERO);
        assertThat(replies.get(3).payload()).hasSize(4 + 8);
    }

    @Test
    void reportsEachSelectedContextInItsOwnChunkAndTheLastEndsTheReply() {
        open("capable", true, "testing:all", "base:allocation");
        send(0, NbdCommand.BLOCK_STATUS, 1, 0, 8192, null);
        List<Reply> replies = replies(0);
        assertThat(replies).extracting(Reply::type).containsExactly(REPLY_TYPE_BLOCK_STATUS, REPLY_TYPE_BLOCK_STATUS);
        assertThat(replies).extracting(Reply::flags).containsExactly(0, REPLY_FLAG_DONE);
        ByteBuffer allocation = ByteBuffer.wrap(replies.get(0).payload());
        assertThat(new int[] {allocation.getInt(), allocation.getInt(), allocation.getInt()}).containsExactly(1, 8192, STATE_HOLE | STATE_ZERO);
        ByteBuffer testing = ByteBuffer.wrap(replies.get(1).payload());
        assertThat(new int[] {testing.getInt(), testing.getInt(), testing.getInt()}).containsExactly(2, 8192, 0x5);
    }

    @Test
    void disconnectWaitsForOutstandingRequestsThenClosesTheDeviceOnce() {
        open("capable", false);
        capable.hold();
        send(0, NbdCommand.WRITE, 1, 0, 3, new byte[] {7, 7, 7});
        send(0, NbdCommand.DISC, 2, 0, 0, null);
        assertThat(conversation.channel().isOpen()).isTrue();
        capable.releaseHeld();
        assertThat(replies(0)).extracting(Reply::handle).containsExactly(1L);
        assertThat(conversation.channel().isOpen()).isFalse();
        assertThat(capable.data()[2]).isEqualTo((byte) 7);
        assertThat(capable.closes()).isEqualTo(1);
    }

    @Test
    void badMagicClosesTheConnectionAndTheDevice() {
        open("capable", false);
        conversation.send(allocator.buffer().writeInt(0xdeadbeef).writeZero(24));
        assertThat(conversation.channel().isOpen()).isFalse();
        assertThat(capable.closes()).isEqualTo(1);
    }
}
