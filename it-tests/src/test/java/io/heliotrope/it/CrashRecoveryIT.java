package io.heliotrope.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static io.heliotrope.it.Tools.ok;
import static org.assertj.core.api.Assertions.assertThat;

/** What a client flushed survives SIGKILL of the site (RocksDB store). */
class CrashRecoveryIT {
    private static final long MIB = 1 << 20;

    @RegisterExtension
    static final SiteExtension site = new SiteExtension();

    @Test
    void flushedWritesSurviveKill9(@TempDir Path tmp) throws Exception {
        site.get().createImage("durable", "128M");
        Path expected = TestData.randomFile(tmp.resolve("expected.raw"), 64 * MIB);
        ok("nbdcopy", "--connections=4", "--flush", expected.toString(), site.get().nbdUri("durable"));
        ok("qemu-io", "-f", "raw",
                "-c", "write -P 0x5a 70M 4096",
                "-c", "write -P 0x5b 100000 3000",
                "-c", "write -z 8M 1M",
                "-c", "flush",
                site.get().nbdUri("durable"));
        try (RandomAccessFile file = new RandomAccessFile(expected.toFile(), "rw")) {
            file.setLength(128 * MIB);
            file.seek(70 * MIB);
            file.write(filled(4096, 0x5a));
            file.seek(100000);
            file.write(filled(3000, 0x5b));
            file.seek(8 * MIB);
            file.write(new byte[(int) MIB]);
        }

        site.get().kill9();
        site.get().restart();

        Path readBack = tmp.resolve("read-back.raw");
        ok("nbdcopy", site.get().nbdUri("durable"), readBack.toString());
        assertThat(Files.mismatch(readBack, expected)).as("offset of the first byte that differs after the restart").isEqualTo(-1);
    }

    @Test
    void writtenImageIsStillListedAfterKill9() {
        site.get().createImage("survivor", "16M");
        ok("qemu-io", "-f", "raw", "-c", "write -P 0x77 0 1M", "-c", "flush", site.get().nbdUri("survivor"));

        site.get().kill9();
        site.get().restart();

        assertThat(site.get().image("ls").assertSuccess().stdout()).containsPattern("(?m)^survivor\\s+16\\.0 MiB ");
        ok("qemu-io", "-f", "raw", "-c", "read -P 0x77 0 1M", site.get().nbdUri("survivor"));
    }

    private static byte[] filled(int length, int value) {
        byte[] bytes = new byte[length];
        Arrays.fill(bytes, (byte) value);
        return bytes;
    }
}
