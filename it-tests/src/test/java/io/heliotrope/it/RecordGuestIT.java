package io.heliotrope.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The records guest of the migration tests writes what its console acknowledges; see src/test/guest/README.md. */
class RecordGuestIT {
    private static final Duration BOOT_AND_RECORDS = Duration.ofSeconds(120);

    @Test
    void acknowledgedRecordsAreOnTheDisk(@TempDir Path tmp) {
        RecordGuest guest = RecordGuest.build();
        String nonce = UUID.randomUUID().toString().replace("-", "");
        int port = Ports.free(1)[0];
        try (ChildProcess nbdkit = ChildProcess.start("nbdkit", List.of("nbdkit", "-f", "-v", "-i", "127.0.0.1",
                "-p", Integer.toString(port), "memory", "64M"))) {
            nbdkit.awaitOutput(Pattern.compile("bound to IP address"), Duration.ofSeconds(20));
            try (ChildProcess qemu = ChildProcess.start("qemu", guest.qemuCommand(nonce, "127.0.0.1", port, "", tmp))) {
                long last = Records.awaitAcknowledged(10, BOOT_AND_RECORDS, RecordGuest.consoleLog(tmp));
                assertThat(qemu.stop()).as("QEMU quits on SIGTERM").isTrue();
                assertThat(Records.lastAcknowledged(RecordGuest.consoleLog(tmp))).isGreaterThanOrEqualTo(last);
            }
            long acknowledged = Records.lastAcknowledged(RecordGuest.consoleLog(tmp));
            Records.verifyNbd("nbd://127.0.0.1:" + port, nonce, acknowledged, tmp.resolve("records.img"));
            assertThatThrownBy(() -> Records.verifyNbd("nbd://127.0.0.1:" + port, "other" + nonce, acknowledged, tmp.resolve("records.img")))
                    .hasMessageStartingWith("record 0 of 0..%d (bytes 0..4095 of %s): expected \"0 other%s "
                            .formatted(acknowledged, tmp.resolve("records.img"), nonce));
        }
    }

    @Test
    void checkerNamesTheFirstBadRecord(@TempDir Path tmp) throws IOException {
        Path disk = tmp.resolve("disk.img");
        Files.write(disk, blocks(Records.record(0, "abc"), Records.record(1, "abc"), Records.record(2, "abd"), ""));

        Records.verify(disk, "abc", 1);
        assertThatThrownBy(() -> Records.verify(disk, "abc", 3))
                .hasMessage("record 2 of 0..3 (bytes 8192..12287 of %s): expected \"%s\" but found \"%s\"".formatted(disk,
                        Records.record(2, "abc").replace("\n", "\\n"), Records.record(2, "abd").replace("\n", "\\n")));
        Files.write(disk, blocks(Records.record(0, "abc"), ""));
        assertThatThrownBy(() -> Records.verify(disk, "abc", 2))
                .hasMessage("record 1 of 0..2 (bytes 4096..8191 of %s): expected \"%s\" but found no record (it starts with a NUL)"
                        .formatted(disk, Records.record(1, "abc").replace("\n", "\\n")));
        Files.write(disk, blocks(Records.record(0, "abc")));
        assertThatThrownBy(() -> Records.verify(disk, "abc", 1))
                .hasMessage("record 1 of 0..1 (bytes 4096..8191 of %s): the disk ends after 0 bytes of it".formatted(disk));
    }

    @Test
    void lastAcknowledgedIsTheLargestCompleteLine() {
        assertThat(Records.lastAcknowledged("")).isEqualTo(-1);
        assertThat(Records.lastAcknowledged("HELIO-REC-START: x\r\nHELIO-REC 3\r\nHELIO-REC 12\r\nHELIO-REC-ERROR 13\r\nHELIO-REC 13"))
                .isEqualTo(12);
    }

    /** A disk image of NUL-padded blocks with these texts. */
    private static byte[] blocks(String... texts) {
        byte[] disk = new byte[texts.length * Records.BLOCK_SIZE];
        for (int n = 0; n < texts.length; n++) {
            byte[] text = texts[n].getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(text, 0, disk, n * Records.BLOCK_SIZE, text.length);
        }
        return disk;
    }
}
