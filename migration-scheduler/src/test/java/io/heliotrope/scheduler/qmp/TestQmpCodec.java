package io.heliotrope.scheduler.qmp;

import io.heliotrope.scheduler.qmp.QmpCommands.MigrateSetCapabilities;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestQmpCodec {
    private final QmpCodec codec = new QmpCodec();

    @Test
    void encodesCommandsWithTheirArgumentsAndId() {
        assertThat(text(7, QmpCommands.Action.MIGRATE_CANCEL)).isEqualTo("{\"execute\":\"migrate_cancel\",\"id\":7}\r\n");
        assertThat(text(8, MigrateSetCapabilities.on("events", "return-path")))
                .isEqualTo("{\"execute\":\"migrate-set-capabilities\",\"arguments\":{\"capabilities\":[{\"capability\":\"events\",\"state\":true},"
                        + "{\"capability\":\"return-path\",\"state\":true}]},\"id\":8}\r\n");
        assertThat(text(9, new QmpCommands.MigrateSetParameters(125_000_000)))
                .isEqualTo("{\"execute\":\"migrate-set-parameters\",\"arguments\":{\"max-bandwidth\":125000000},\"id\":9}\r\n");
        assertThat(text(10, new QmpCommands.MigrateContinue("pre-switchover")))
                .isEqualTo("{\"execute\":\"migrate-continue\",\"arguments\":{\"state\":\"pre-switchover\"},\"id\":10}\r\n");
        assertThat(text(11, QmpCommands.QUERY_STATUS)).isEqualTo("{\"execute\":\"query-status\",\"id\":11}\r\n");
    }

    @Test
    void decodesEventsWithTheirTimestampInMicroseconds() {
        assertThat(codec.decode("{\"timestamp\": {\"seconds\": 1700000000, \"microseconds\": 123456}, \"event\": \"MIGRATION\", \"data\": {\"status\": \"pre-switchover\"}}"))
                .isEqualTo(new QmpMessage.Event(new QmpEvent.Migration(1_700_000_000_123_456L, "pre-switchover")));
        assertThat(codec.decode("{\"timestamp\": {\"seconds\": 2, \"microseconds\": 5}, \"event\": \"SHUTDOWN\", \"data\": {\"guest\": false, \"reason\": \"host-qmp-quit\"}}"))
                .isEqualTo(new QmpMessage.Event(new QmpEvent.Shutdown(2_000_005L, false, "host-qmp-quit")));
        assertThat(codec.decode("{\"timestamp\": {\"seconds\": 1, \"microseconds\": 0}, \"event\": \"STOP\"}"))
                .isEqualTo(new QmpMessage.Event(new QmpEvent.Stop(1_000_000L)));
        assertThat(codec.decode("{\"timestamp\": {\"seconds\": 1, \"microseconds\": 0}, \"event\": \"MIGRATION_PASS\", \"data\": {\"pass\": 2}}"))
                .isEqualTo(new QmpMessage.Event(new QmpEvent.Other(1_000_000L, "MIGRATION_PASS")));
    }

    @Test
    void decodesGreetingRepliesAndErrors() {
        assertThat(codec.decode(TestingQmpServer.GREETING)).isEqualTo(new QmpMessage.Greeting("7.2.22"));
        assertThat(codec.decode("{\"error\": {\"class\": \"GenericError\", \"desc\": \"No migration in progress\"}, \"id\": 4}"))
                .isEqualTo(new QmpMessage.Error(4, "GenericError", "No migration in progress"));
        QmpMessage.Return reply = (QmpMessage.Return) codec.decode("{\"return\": {\"status\": \"completed\", \"total-time\": 670, \"downtime\": 36, "
                + "\"ram\": {\"total\": 272957440, \"remaining\": 0, \"transferred\": 1000, \"mbps\": 812.5, \"dirty-pages-rate\": 3, \"skipped\": 0}}, \"id\": 5}");
        assertThat(reply.id()).isEqualTo(5);
        assertThat(codec.read(reply.value(), MigrationInfo.class))
                .isEqualTo(new MigrationInfo("completed", 670, 36, 0, new MigrationInfo.Ram(272957440, 0, 1000, 812.5, 3), null));
        QmpMessage.Return empty = (QmpMessage.Return) codec.decode("{\"return\": {}, \"id\": 6}");
        assertThat(codec.read(empty.value(), MigrationInfo.class)).isEqualTo(new MigrationInfo(null, 0, 0, 0, new MigrationInfo.Ram(0, 0, 0, 0, 0), null));
    }

    @Test
    void refusesWhatIsNoQmpMessage() {
        assertThatThrownBy(() -> codec.decode("{\"hello\": 1}")).isInstanceOf(IllegalArgumentException.class).hasMessage("not a QMP message: {\"hello\": 1}");
        assertThatThrownBy(() -> codec.decode("{\"ret")).isInstanceOf(IllegalArgumentException.class).hasMessage("not JSON: {\"ret");
    }

    @Test
    void framesMessagesSplitAnywhere() {
        String stream = TestingQmpServer.GREETING + "\r\n{\"return\": {}, \"id\": 1}\r\n"
                + "{\"timestamp\": {\"seconds\": 3, \"microseconds\": 4}, \"event\": \"RESUME\"}\r\n";
        byte[] bytes = stream.getBytes(StandardCharsets.UTF_8);
        for (int split = 1; split < bytes.length; split++) {
            QmpFrameDecoder decoder = new QmpFrameDecoder(codec);
            List<QmpMessage> messages = new ArrayList<>(decoder.decode(ByteBuffer.wrap(bytes, 0, split)));
            messages.addAll(decoder.decode(ByteBuffer.wrap(bytes, split, bytes.length - split)));
            assertThat(messages).hasSize(3).last().isEqualTo(new QmpMessage.Event(new QmpEvent.Resume(3_000_004L)));
        }
    }

    @Test
    void refusesALineLongerThanTheMaximum() {
        QmpFrameDecoder decoder = new QmpFrameDecoder(codec);
        assertThatThrownBy(() -> decoder.decode(ByteBuffer.allocate(QmpFrameDecoder.MAX_LINE + 1)))
                .hasMessage("a QMP message longer than 1048576 bytes");
    }

    private String text(long id, QmpCommand<?> command) {
        return new String(codec.encode(id, command), StandardCharsets.UTF_8);
    }
}
