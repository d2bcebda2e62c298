package io.heliotrope.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.heliotrope.it.Tools.ok;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * libnbd's {@code nbdcopy}: bulk copies over several connections, and sparse copies, with
 * store calls on the NBD event loops (as on tmpfs).
 */
class NbdCopyIT {
    private static final long MIB = 1 << 20;
    private static final Pattern DATA_BLOCKS = Pattern.compile("^data blocks: (\\d+) ", Pattern.MULTILINE);

    @RegisterExtension
    static final SiteExtension site = new SiteExtension("--io-threads", "0");

    @Test
    void storeCallsRunOnTheEventLoops() {
        assertThat(site.get().log()).contains("block store calls run on the NBD event loops");
    }

    @Test
    void multiConnCopyInAndOutKeepsEveryByte(@TempDir Path tmp) {
        site.get().createImage("bulk", "256M");
        String uri = site.get().nbdUri("bulk");
        Path source = TestData.randomFile(tmp.resolve("source.raw"), 256 * MIB);
        Path copy = tmp.resolve("copy.raw");

        ok("nbdcopy", "--connections=4", "--flush", source.toString(), uri);
        ok("nbdcopy", uri, copy.toString());

        assertThat(Tools.sha256(copy)).isEqualTo(Tools.sha256(source));
        assertThat(dataBlocks("bulk")).isEqualTo(256 * MIB / 4096);
    }

    @Test
    void sparseCopiesStoreOnlyTheWrittenBlocks(@TempDir Path tmp) throws Exception {
        Path source = TestData.truncate(tmp.resolve("sparse.raw"), 256 * MIB);
        TestData.writeRandom(source, 0, MIB);
        TestData.writeRandom(source, 100 * MIB, MIB);
        site.get().createImage("sparse-a", "256M");
        site.get().createImage("sparse-b", "256M");
        Path copy = tmp.resolve("copy.raw");

        ok("nbdcopy", source.toString(), site.get().nbdUri("sparse-a"));
        ok("nbdcopy", site.get().nbdUri("sparse-a"), site.get().nbdUri("sparse-b"));
        ok("nbdcopy", site.get().nbdUri("sparse-b"), copy.toString());

        assertThat(dataBlocks("sparse-a")).as("file to image").isEqualTo(2 * MIB / 4096);
        assertThat(dataBlocks("sparse-b")).as("image to image").isEqualTo(2 * MIB / 4096);
        assertThat(Files.mismatch(source, copy)).isEqualTo(-1);
        assertThat(Tools.allocatedBytes(copy)).as("image to file leaves holes").isLessThanOrEqualTo(4 * MIB);
    }

    private static long dataBlocks(String image) {
        String show = site.get().image("show", image).assertSuccess().stdout();
        Matcher matcher = DATA_BLOCKS.matcher(show);
        assertThat(matcher.find()).as(show).isTrue();
        return Long.parseLong(matcher.group(1));
    }
}
