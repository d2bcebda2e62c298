package io.heliotrope.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.heliotrope.it.Extent.data;
import static io.heliotrope.it.Extent.zero;
import static io.heliotrope.it.Tools.ok;
import static io.heliotrope.it.Tools.run;
import static org.assertj.core.api.Assertions.assertThat;

/** libnbd's {@code nbdinfo} sees what the handshake and BLOCK_STATUS promise. */
class NbdInfoIT {
    private static final long MIB = 1 << 20;
    private static final Pattern LISTED_EXPORT = Pattern.compile("^export=\"([^\"]*)\":", Pattern.MULTILINE);

    @RegisterExtension
    static final SiteExtension site = new SiteExtension();

    @Test
    void showsSizeCapabilitiesAndPreferredBlockSize() {
        site.get().createImage("info", "256M");

        Map<String, String> info = fields(ok("nbdinfo", site.get().nbdUri("info")).stdout());

        assertThat(info.get("export-size")).startsWith("268435456 ");
        assertThat(info).containsEntry("can_flush", "true")
                .containsEntry("can_fua", "true")
                .containsEntry("can_trim", "true")
                .containsEntry("can_zero", "true")
                .containsEntry("can_multi_conn", "true")
                .containsEntry("is_read_only", "false")
                .containsEntry("block_size_preferred", "4096");
    }

    @Test
    void listShowsEveryImage() {
        site.get().createImage("listed-1", "4M");
        site.get().createImage("listed-2", "8M");

        String list = ok("nbdinfo", "--list", site.get().nbdServerUri()).stdout();

        assertThat(LISTED_EXPORT.matcher(list).results().map(m -> m.group(1))).contains("listed-1", "listed-2");
    }

    @Test
    void mapShowsWrittenDataAndZeroRanges() {
        site.get().createImage("mapped", "64M");
        String uri = site.get().nbdUri("mapped");
        ok("qemu-io", "-f", "raw", "-c", "write -P 0xab 1M 1M", "-c", "write -P 0xcd 8M 64k", uri);

        String map = ok("nbdinfo", "--map", uri).stdout();

        assertThat(Extent.fromNbdinfoMap(map)).as(map).containsExactly(
                zero(0, MIB),
                data(MIB, MIB),
                zero(2 * MIB, 6 * MIB),
                data(8 * MIB, 64 * 1024),
                zero(8 * MIB + 64 * 1024, 56 * MIB - 64 * 1024));
    }

    @Test
    void unknownExportFailsCleanlyAndServerKeepsServing() {
        site.get().createImage("still-here", "4M");

        Tools.Result missing = run("nbdinfo", site.get().nbdUri("no-such-image"));

        assertThat(missing.exitCode()).as(missing.toString()).isNotZero();
        assertThat(missing.stderr()).as("the server refused the export in the handshake, not by dropping the connection")
                .contains("server replied with error");
        assertThat(fields(ok("nbdinfo", site.get().nbdUri("still-here")).stdout()).get("export-size")).startsWith("4194304 ");
    }

    /** {@code key: value} lines of nbdinfo's text output. */
    private static Map<String, String> fields(String output) {
        Map<String, String> fields = new HashMap<>();
        Matcher line = Pattern.compile("^\\s*([a-z_-]+): (.*)$", Pattern.MULTILINE).matcher(output);
        while (line.find()) {
            fields.putIfAbsent(line.group(1), line.group(2).strip());
        }
        return fields;
    }
}
