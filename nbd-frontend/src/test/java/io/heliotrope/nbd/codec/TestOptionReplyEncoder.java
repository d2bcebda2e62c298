package io.heliotrope.nbd.codec;

import io.heliotrope.nbd.TrackingAllocator;
import io.heliotrope.nbd.protocol.OptionReply;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static io.heliotrope.nbd.protocol.NbdConstants.OPT_GO;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_INFO;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_LIST;
import static io.heliotrope.nbd.protocol.NbdConstants.OPT_SET_META_CONTEXT;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ACK;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_UNKNOWN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Each option reply's bytes, as the protocol document lays them out: magic, option, type, length, data. */
class TestOptionReplyEncoder {
    private static final String MAGIC = "0003e889045565a9";

    private final TrackingAllocator allocator = new TrackingAllocator();
    private final EmbeddedChannel channel = new EmbeddedChannel(OptionReplyEncoder.INSTANCE);

    TestOptionReplyEncoder() {
        channel.config().setAllocator(allocator);
    }

    @AfterEach
    void finish() {
        assertThat(channel.finish()).isFalse();
        allocator.assertAllReleased();
    }

    private String encoded(OptionReply reply) {
        assertThat(channel.writeOutbound(reply)).isTrue();
        ByteBuf bytes = channel.readOutbound();
        try {
            Object next = channel.readOutbound();
            assertThat(next).as("one buffer a reply").isNull();
            return ByteBufUtil.hexDump(bytes);
        } finally {
            bytes.release();
        }
    }

    @Test
    void ack() {
        assertThat(encoded(new OptionReply.Ack(OPT_GO))).isEqualTo(MAGIC + "00000007" + "00000001" + "00000000");
    }

    @Test
    void serverNamesAnExportWithItsLength() {
        assertThat(encoded(new OptionReply.Server(OPT_LIST, "disk", "")))
                .isEqualTo(MAGIC + "00000003" + "00000002" + "00000008" + "00000004" + "6469736b");
    }

    @Test
    void serverDescribesAnExportAfterItsName() {
        assertThat(encoded(new OptionReply.Server(OPT_LIST, "é", "4 MiB")))
                .isEqualTo(MAGIC + "00000003" + "00000002" + "0000000b" + "00000002" + "c3a9" + "34204d6942");
    }

    @Test
    void exportInfo() {
        assertThat(encoded(new OptionReply.ExportInfo(OPT_GO, 1 << 20, 0x12d)))
                .isEqualTo(MAGIC + "00000007" + "00000003" + "0000000c" + "0000" + "0000000000100000" + "012d");
    }

    @Test
    void nameInfoCountsBytesNotCharacters() {
        assertThat(encoded(new OptionReply.NameInfo(OPT_INFO, "é")))
                .isEqualTo(MAGIC + "00000006" + "00000003" + "00000004" + "0001" + "c3a9");
    }

    @Test
    void blockSizeInfo() {
        assertThat(encoded(new OptionReply.BlockSizeInfo(OPT_GO, 1, 4096, 32 << 20)))
                .isEqualTo(MAGIC + "00000007" + "00000003" + "0000000e" + "0003" + "00000001" + "00001000" + "02000000");
    }

    @Test
    void metaContextCarriesItsIdAndName() {
        assertThat(encoded(new OptionReply.MetaContext(OPT_SET_META_CONTEXT, 1, "base:allocation")))
                .isEqualTo(MAGIC + "0000000a" + "00000004" + "00000013" + "00000001" + "626173653a616c6c6f636174696f6e");
    }

    @Test
    void errorCarriesItsTypeAndMessage() {
        assertThat(encoded(new OptionReply.Error(OPT_GO, REP_ERR_UNKNOWN, "no")))
                .isEqualTo(MAGIC + "00000007" + "80000006" + "00000002" + "6e6f");
    }

    @Test
    void anErrorNeedsAnErrorType() {
        assertThatThrownBy(() -> new OptionReply.Error(OPT_GO, REP_ACK, "no"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("not an error reply type: 1");
    }
}
