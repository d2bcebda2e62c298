package io.heliotrope.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static io.heliotrope.it.Extent.data;
import static io.heliotrope.it.Extent.zero;
import static io.heliotrope.it.Tools.ok;
import static io.heliotrope.it.Tools.run;
import static org.assertj.core.api.Assertions.assertThat;

/** QEMU's own NBD client ({@code qemu-img}, {@code qemu-io}) against a site whose store calls run on the NBD event loops. */
class QemuToolsIT {
    private static final long MIB = 1 << 20;

    @RegisterExtension
    static final SiteExtension site = new SiteExtension("--io-threads", "0");

    @Test
    void infoReportsVirtualSize() {
        site.get().createImage("qemu-info", "256M");

        String info = ok("qemu-img", "info", "--output=json", site.get().nbdUri("qemu-info")).stdout();

        assertThat(info).contains("\"virtual-size\": 268435456,");
    }

    @Test
    void convertedRawFileComparesIdentical(@TempDir Path tmp) {
        site.get().createImage("converted", "32M");
        String uri = site.get().nbdUri("converted");
        Path source = TestData.randomFile(tmp.resolve("source.raw"), 32 * MIB);

        ok("qemu-img", "convert", "-n", "-f", "raw", "-O", "raw", source.toString(), uri);

        ok("qemu-img", "compare", "-f", "raw", "-F", "raw", source.toString(), uri);
        ok("qemu-io", "-f", "raw", "-c", "write -P 0x00 20M 512", uri);
        assertThat(run("qemu-img", "compare", "-f", "raw", "-F", "raw", source.toString(), uri).exitCode())
                .as("compare notices a changed sector").isEqualTo(1);
    }

    @Test
    void mapShowsZeroRangesAfterWriteZeroesAndDiscard() {
        site.get().createImage("zeroed", "16M");
        String uri = site.get().nbdUri("zeroed");
        ok("qemu-io", "-f", "raw", "-c", "write -P 0xab 0 4M", uri);

        ok("qemu-io", "-f", "raw", "-c", "write -z 1M 512k", "-c", "discard 3M 1M", uri);

        String map = ok("qemu-img", "map", "--output=json", "-f", "raw", uri).stdout();
        assertThat(Extent.fromQemuImgMap(map)).as(map).containsExactly(
                data(0, MIB),
                zero(MIB, MIB / 2),
                data(3 * MIB / 2, 3 * MIB / 2),
                zero(3 * MIB, 13 * MIB));
        ok("qemu-io", "-f", "raw", "-c", "read -P 0 1M 512k", "-c", "read -P 0 3M 1M", "-c", "read -P 0xab 1536k 1536k", uri);
    }

    @Test
    void alignedAndUnalignedWritesReadBackWithTheirNeighbours() {
        site.get().createImage("patterns", "1M");
        String uri = site.get().nbdUri("patterns");
        ok("qemu-io", "-f", "raw", "-c", "write -P 0x55 0 64k", uri);

        ok("qemu-io", "-f", "raw",
                "-c", "write -P 0x11 4097 512",     // inside one 4K block
                "-c", "write -P 0x22 16000 1000",   // across the boundary at 16384
                "-c", "write -P 0x33 32768 8192",   // two whole blocks
                uri);

        Tools.Result read = run("qemu-io", "-f", "raw",
                "-c", "read -P 0x55 0 4097",
                "-c", "read -P 0x11 4097 512",
                "-c", "read -P 0x55 4609 11391",
                "-c", "read -P 0x22 16000 1000",
                "-c", "read -P 0x55 17000 15768",
                "-c", "read -P 0x33 32768 8192",
                "-c", "read -P 0x55 40960 24576",
                uri);
        assertThat(read.stdout()).as(read.toString()).doesNotContain("Pattern verification failed");
        assertThat(read.exitCode()).as(read.toString()).isZero();
    }

    @Test
    void readPastEndFailsAndConnectionStaysUsable() {
        site.get().createImage("bounded", "1M");
        String uri = site.get().nbdUri("bounded");

        Tools.Result result = run("qemu-io", "-f", "raw",
                "-c", "write -P 0x44 1040384 8192", // the last 8K of the image ...
                "-c", "read 1048576 4096",          // ... then past its end
                "-c", "read -P 0x44 1040384 8192",  // same connection still serves
                uri);

        assertThat(result.stdout()).as(result.toString())
                .contains("wrote 8192/8192 bytes at offset 1040384")
                .contains("read failed")
                .contains("read 8192/8192 bytes at offset 1040384")
                .doesNotContain("Pattern verification failed");
    }
}
