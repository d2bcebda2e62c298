package io.heliotrope.nbd.codec;

import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.nbd.ExportCatalog;
import io.heliotrope.nbd.ExportDetails;
import io.heliotrope.nbd.ListedExport;
import io.heliotrope.nbd.NbdConversation;
import io.heliotrope.nbd.NbdException;
import io.heliotrope.nbd.TestingBlockDevice;
import io.heliotrope.nbd.TestingExportCatalog;
import io.heliotrope.nbd.TestingMetaContext;
import io.heliotrope.nbd.TrackingAllocator;
import io.heliotrope.nbd.server.BaseAllocation;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.heliotrope.nbd.protocol.NbdConstants.FLAG_FIXED_NEWSTYLE;
import static io.heliotrope.nbd.protocol.NbdConstants.FLAG_NO_ZEROES;
import static io.heliotrope.nbd.protocol.NbdConstants.IHAVEOPT;
import static io.heliotrope.nbd.protocol.NbdConstants.INFO_BLOCK_SIZE;
import static io.heliotrope.nbd.protocol.NbdConstants.INFO_EXPORT;
import static io.heliotrope.nbd.protocol.NbdConstants.MAX_OPTION_LENGTH;
import static io.heliotrope.nbd.protocol.NbdConstants.NBDMAGIC;
import static io.heliotrope.nbd.protocol.NbdConstants.OPTION_REPLY_MAGIC;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_ABORT;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_EXPORT_NAME;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_GO;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_INFO;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_LIST;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_LIST_META_CONTEXT;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_SET_META_CONTEXT;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_STRUCTURED_REPLY;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ACK;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_INVALID;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_POLICY;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_TOO_BIG;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_UNKNOWN;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_UNSUP;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_INFO;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_META_CONTEXT;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_SERVER;
import static io.heliotrope.nbd.protocol.NbdConstants.TRANSMISSION_CAN_MULTI_CONN;
import static io.heliotrope.nbd.protocol.NbdConstants.TRANSMISSION_HAS_FLAGS;
import static io.heliotrope.nbd.protocol.NbdConstants.TRANSMISSION_READ_ONLY;
import static io.heliotrope.nbd.protocol.NbdConstants.TRANSMISSION_SEND_TRIM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

class TestNbdHandshakeHandler {
    private final TrackingAllocator allocator = new TrackingAllocator();
    private final TestingBlockDevice disk = new TestingBlockDevice(1 << 20, allocator, true, false);
    private final TestingBlockDevice readOnly = new TestingBlockDevice(8192, allocator, false, true);
    private final TestingExportCatalog catalog = new TestingExportCatalog(Map.<String, BlockDevice>of("disk", disk, "ro", readOnly));
    private NbdConversation conversation;

    record OptionReply(int option, int type, byte[] data) {
        String text() {
            return new String(data, StandardCharsets.UTF_8);
        }

        /** The export an {@code NBD_REP_SERVER} names, and its description. */
        List<String> export() {
            ByteBuffer buffer = ByteBuffer.wrap(data);
            int nameLength = buffer.getInt();
            return List.of(new String(data, 4, nameLength, StandardCharsets.UTF_8),
                    new String(data, 4 + nameLength, data.length - 4 - nameLength, StandardCharsets.UTF_8));
        }

        int contextId() {
            return ByteBuffer.wrap(data).getInt();
        }

        String contextName() {
            return new String(data, 4, data.length - 4, StandardCharsets.UTF_8);
        }
    }

    @BeforeEach
    void connect() {
        conversation = new NbdConversation(catalog, allocator);
        ByteBuf greeting = conversation.received();
        assertThat(greeting.readLong()).isEqualTo(NBDMAGIC);
        assertThat(greeting.readLong()).isEqualTo(IHAVEOPT);
        assertThat(greeting.readShort()).isEqualTo((short) (FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES));
        greeting.release();
        conversation.send(conversation.clientFlags(FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES));
    }

    @AfterEach
    void close() {
        conversation.close();
        allocator.assertAllReleased();
    }

    private List<OptionReply> replies() {
        ByteBuf bytes = conversation.received();
        List<OptionReply> replies = replies(bytes);
        bytes.release();
        return replies;
    }

    private static List<OptionReply> replies(ByteBuf bytes) {
        List<OptionReply> replies = new ArrayList<>();
        while (bytes.isReadable()) {
            assertThat(bytes.readLong()).isEqualTo(OPTION_REPLY_MAGIC);
            int option = bytes.readInt();
            int type = bytes.readInt();
            byte[] data = new byte[bytes.readInt()];
            bytes.readBytes(data);
            replies.add(new OptionReply(option, type, data));
        }
        return replies;
    }

    @Test
    void listsExportsWithTheirDescriptions() {
        conversation.send(conversation.option(OPT_LIST, conversation.empty()));
        List<OptionReply> replies = replies();
        assertThat(replies).extracting(OptionReply::type).containsExactly(REP_SERVER, REP_SERVER, REP_ACK);
        assertThat(replies.subList(0, 2)).extracting(OptionReply::export)
                .containsExactly(List.of("disk", "1048576 bytes"), List.of("ro", "8192 bytes"));
    }

    @Test
    void aListAnsweredLaterKeepsTheOrderOfTheReplies() {
        catalog.holdLists();
        conversation.send(conversation.option(OPT_LIST, conversation.empty()));
        // A client must wait for the answer; one that sends its next option anyway gets the answers in order.
        conversation.send(conversation.option(OPT_STRUCTURED_REPLY, conversation.empty()));
        assertThat(replies()).isEmpty();

        catalog.nextHeldList().complete(catalog.exports());
        List<OptionReply> replies = replies();
        assertThat(replies).extracting(OptionReply::option, OptionReply::type).containsExactly(
                tuple(OPT_LIST, REP_SERVER), tuple(OPT_LIST, REP_SERVER), tuple(OPT_LIST, REP_ACK), tuple(OPT_STRUCTURED_REPLY, REP_ACK));
        assertThat(catalog.nextHeldList()).isNull();
    }

    @Test
    void aListThatFailsIsRefusedWithItsMessageAndTheClientMayListAgain() {
        catalog.holdLists();
        conversation.send(conversation.option(OPT_LIST, conversation.empty()));
        catalog.nextHeldList().completeExceptionally(new NbdException(NbdException.Kind.UNAVAILABLE, "cannot reach the controller"));
        OptionReply refusal = replies().get(0);
        assertThat(refusal.type()).isEqualTo(REP_ERR_POLICY);
        assertThat(refusal.text()).isEqualTo("cannot reach the controller");

        conversation.send(conversation.option(OPT_LIST, conversation.empty()));
        catalog.nextHeldList().complete(catalog.exports());
        assertThat(replies()).extracting(OptionReply::type).containsExactly(REP_SERVER, REP_SERVER, REP_ACK);
    }

    @Test
    void aListThatFailsForAReasonOfOursSaysNoMore() {
        catalog.holdLists();
        conversation.send(conversation.option(OPT_LIST, conversation.empty()));
        catalog.nextHeldList().completeExceptionally(new IllegalStateException("a detail for the log only"));
        List<OptionReply> replies = replies();
        assertThat(replies).extracting(OptionReply::type, OptionReply::text).containsExactly(tuple(REP_ERR_POLICY, "internal error"));
    }

    @Test
    void aListAnsweredAfterTheClientLeftWritesNothing() {
        catalog.holdLists();
        conversation.send(conversation.option(OPT_LIST, conversation.empty()));
        conversation.channel().close();

        catalog.nextHeldList().complete(catalog.exports());
        assertThat(replies()).isEmpty();
    }

    @Test
    void infoDescribesAnExportAndLeavesTheHandshakeOpen() {
        conversation.send(conversation.option(OPT_INFO, conversation.goData("ro")), 3);
        List<OptionReply> replies = replies();
        assertThat(replies).extracting(OptionReply::type).containsExactly(REP_INFO, REP_INFO, REP_ACK);
        ByteBuf export = allocator.buffer().writeBytes(replies.get(0).data());
        assertThat(export.readShort()).isEqualTo((short) INFO_EXPORT);
        assertThat(export.readLong()).isEqualTo(8192);
        int flags = export.readUnsignedShort();
        assertThat(flags & TRANSMISSION_READ_ONLY).isNotZero();
        assertThat(flags & TRANSMISSION_SEND_TRIM).isZero();
        export.release();
        ByteBuf blockSize = allocator.buffer().writeBytes(replies.get(1).data());
        assertThat(blockSize.readShort()).isEqualTo((short) INFO_BLOCK_SIZE);
        assertThat(blockSize.readInt()).isEqualTo(1);
        assertThat(blockSize.readInt()).isEqualTo(4096);
        blockSize.release();
        assertThat(readOnly.closes()).isEqualTo(1);

        conversation.send(conversation.option(OPT_LIST, conversation.empty()));
        assertThat(replies()).extracting(OptionReply::type).endsWith(REP_ACK);
    }

    @Test
    void infoTellsWhatTheCatalogKnowsWithoutOpeningTheExport() {
        ExportCatalog describing = new ExportCatalog() {
            @Override
            public CompletableFuture<List<ListedExport>> list() {
                return catalog.list();
            }

            @Override
            public boolean exists(String name) {
                return catalog.exists(name);
            }

            @Override
            public CompletableFuture<BlockDevice> open(String name) {
                throw new AssertionError("NBD_OPT_INFO opened " + name);
            }

            @Override
            public CompletableFuture<ExportDetails> details(String name) {
                return CompletableFuture.completedFuture(new ExportDetails(1L << 40, false, true, false));
            }
        };
        NbdConversation other = new NbdConversation(describing, allocator);
        other.received().release();
        other.send(other.clientFlags(FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES));
        other.send(other.option(OPT_INFO, other.goData("disk")));
        ByteBuf bytes = other.received();
        List<OptionReply> replies = replies(bytes);
        bytes.release();
        other.close();

        assertThat(replies).extracting(OptionReply::type).containsExactly(REP_INFO, REP_INFO, REP_ACK);
        ByteBuffer export = ByteBuffer.wrap(replies.get(0).data());
        assertThat(export.getShort()).isEqualTo((short) INFO_EXPORT);
        assertThat(export.getLong()).isEqualTo(1L << 40);
        assertThat(export.getShort() & (TRANSMISSION_SEND_TRIM | TRANSMISSION_CAN_MULTI_CONN | TRANSMISSION_READ_ONLY)).isEqualTo(TRANSMISSION_SEND_TRIM);
    }

    @Test
    void goToAnUnknownExportIsRefusedAndTheClientMayTryAgain() {
        conversation.send(conversation.option(OPT_GO, conversation.goData("nope")));
        OptionReply refusal = replies().get(0);
        assertThat(refusal.type()).isEqualTo(REP_ERR_UNKNOWN);
        assertThat(refusal.text()).isEqualTo("image 'nope' does not exist");

        conversation.send(conversation.option(OPT_GO, conversation.goData("disk")));
        assertThat(replies()).extracting(OptionReply::type).endsWith(REP_ACK);
        assertThat(conversation.channel().pipeline().names()).doesNotContain("handshake", "handshake-replies");
    }

    @Test
    void exportNameAnswersWithSizeAndFlags() {
        conversation.send(conversation.option(OPT_EXPORT_NAME, allocator.buffer().writeBytes("disk".getBytes(StandardCharsets.UTF_8))));
        ByteBuf reply = conversation.received();
        assertThat(reply.readableBytes()).isEqualTo(10);
        assertThat(reply.readLong()).isEqualTo(1 << 20);
        assertThat(reply.readUnsignedShort() & (TRANSMISSION_HAS_FLAGS | TRANSMISSION_CAN_MULTI_CONN))
                .isEqualTo(TRANSMISSION_HAS_FLAGS | TRANSMISSION_CAN_MULTI_CONN);
        reply.release();
    }

    @Test
    void exportNameOfAnUnknownExportClosesTheConnection() {
        conversation.send(conversation.option(OPT_EXPORT_NAME, allocator.buffer().writeBytes("nope".getBytes(StandardCharsets.UTF_8))));
        conversation.received().release();
        assertThat(conversation.channel().isOpen()).isFalse();
    }

    @Test
    void refusesMalformedAndUnknownOptions() {
        conversation.send(conversation.option(OPT_STRUCTURED_REPLY, allocator.buffer().writeInt(1)));
        conversation.send(conversation.option(OPT_GO, allocator.buffer().writeInt(100).writeShort(0)));
        conversation.send(conversation.option(OPT_LIST, allocator.buffer().writeByte(1)));
        conversation.send(conversation.option(4242, conversation.empty()));
        assertThat(replies()).extracting(OptionReply::type)
                .containsExactly(REP_ERR_INVALID, REP_ERR_INVALID, REP_ERR_INVALID, REP_ERR_UNSUP);
    }

    @Test
    void skipsAnOversizedOptionAndAnswersTooBig() {
        ByteBuf header = allocator.buffer().writeLong(IHAVEOPT).writeInt(OPT_LIST).writeInt(MAX_OPTION_LENGTH * 4);
        conversation.send(header);
        conversation.send(allocator.buffer(MAX_OPTION_LENGTH * 4).writerIndex(MAX_OPTION_LENGTH * 4), 10_000);
        assertThat(replies()).extracting(OptionReply::type).containsExactly(REP_ERR_TOO_BIG);
        conversation.send(conversation.option(OPT_LIST, conversation.empty()));
        assertThat(replies()).extracting(OptionReply::type).endsWith(REP_ACK);
    }

    @Test
    void metaContextNeedsStructuredRepliesThenSelectsBaseAllocation() {
        conversation.send(conversation.option(OPT_SET_META_CONTEXT, conversation.metaContextData("disk", "base:allocation")));
        assertThat(replies()).extracting(OptionReply::type).containsExactly(REP_ERR_INVALID);

        conversation.send(conversation.option(OPT_STRUCTURED_REPLY, conversation.empty()));
        conversation.send(conversation.option(OPT_LIST_META_CONTEXT, conversation.metaContextData("disk")));
        conversation.send(conversation.option(OPT_SET_META_CONTEXT, conversation.metaContextData("disk", "qemu:dirty-bitmap:x", "base:allocation")));
        conversation.send(conversation.option(OPT_SET_META_CONTEXT, conversation.metaContextData("nope", "base:allocation")));
        List<OptionReply> replies = replies();
        assertThat(replies).extracting(OptionReply::type)
                .containsExactly(REP_ACK, REP_META_CONTEXT, REP_ACK, REP_META_CONTEXT, REP_ACK, REP_ERR_UNKNOWN);
        assertThat(replies.get(3).text()).endsWith("base:allocation");
    }

    @Test
    void listsAndSelectsEveryOfferedContextWithIdsInTheOrderOffered() {
        NbdConversation other = new NbdConversation(new TestingExportCatalog(Map.<String, BlockDevice>of("disk", disk)),
                List.of(new BaseAllocation(), new TestingMetaContext("testing:all", 0)), allocator);
        other.received().release();
        other.send(other.clientFlags(FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES));
        other.send(other.option(OPT_STRUCTURED_REPLY, other.empty()));
        other.send(other.option(OPT_LIST_META_CONTEXT, other.metaContextData("disk")));
        other.send(other.option(OPT_LIST_META_CONTEXT, other.metaContextData("disk", "base:")));
        other.send(other.option(OPT_SET_META_CONTEXT, other.metaContextData("disk", "testing:all", "testing:", "base:allocation")));
        ByteBuf bytes = other.received();
        List<OptionReply> replies = replies(bytes);
        bytes.release();
        other.close();
        assertThat(replies).extracting(OptionReply::type).containsExactly(REP_ACK,
                REP_META_CONTEXT, REP_META_CONTEXT, REP_ACK,
                REP_META_CONTEXT, REP_ACK,
                REP_META_CONTEXT, REP_META_CONTEXT, REP_ACK);
        assertThat(replies).filteredOn(reply -> reply.type() == REP_META_CONTEXT).extracting(OptionReply::contextId, OptionReply::contextName)
                .containsExactly(tuple(0, "base:allocation"), tuple(0, "testing:all"),
                        tuple(0, "base:allocation"),
                        tuple(1, "base:allocation"), tuple(2, "testing:all"));
    }

    @Test
    void abortIsAcknowledgedAndCloses() {
        conversation.send(conversation.option(OPT_ABORT, conversation.empty()));
        assertThat(replies()).extracting(OptionReply::type).containsExactly(REP_ACK);
        assertThat(conversation.channel().isOpen()).isFalse();
    }

    @Test
    void closesAClientThatChoosesNoExportInTime() {
        conversation.channel().advanceTimeBy(NbdHandshakeHandler.HANDSHAKE_TIMEOUT_SECONDS - 1, TimeUnit.SECONDS);
        conversation.channel().runScheduledPendingTasks();
        assertThat(conversation.channel().isOpen()).isTrue();
        conversation.channel().advanceTimeBy(2, TimeUnit.SECONDS);
        conversation.channel().runScheduledPendingTasks();
        assertThat(conversation.channel().isOpen()).isFalse();
    }

    @Test
    void theHandshakeTimeoutSparesAConnectionInTransmission() {
        conversation.send(conversation.option(OPT_GO, conversation.goData("disk")));
        replies();
        conversation.channel().advanceTimeBy(NbdHandshakeHandler.HANDSHAKE_TIMEOUT_SECONDS + 1, TimeUnit.SECONDS);
        conversation.channel().runScheduledPendingTasks();
        assertThat(conversation.channel().isOpen()).isTrue();
    }

    @Test
    void unknownClientFlagsCloseTheConnection() {
        NbdConversation other = new NbdConversation(new TestingExportCatalog(Map.of()), allocator);
        other.received().release();
        other.send(other.clientFlags(0x80));
        assertThat(other.channel().isOpen()).isFalse();
        other.close();
    }
}
