package io.heliotrope.it;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.heliotrope.it.Tools.ok;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A site whose data lives on a small ext4 on a loop device, filled up through NBD by
 * qemu-io. Its writes are made with qemu-io's default writethrough cache, so each one it
 * reports as written was flushed too: acknowledged.
 */
class FullDiskIT {
    private static final long MIB = 1 << 20;
    private static final Pattern WROTE = Pattern.compile("(?m)^wrote 1048576/1048576 bytes at offset (\\d+)$");
    private static final String ENOSPC = "write failed: No space left on device";

    @BeforeAll
    static void requireRootAndLoopDevices() {
        LoopFileSystem.assumeAvailable();
    }

    @Test
    void writesFailWithEnospcReadsGoOnAndNothingAcknowledgedIsLost(@TempDir Path tmp) throws Exception {
        try (Cleanup cleanup = new Cleanup()) {
            LoopFileSystem disk = LoopFileSystem.mount(tmp, "384M", cleanup);
            TestingSite site = TestingSite.startIn(disk.mountpoint().resolve("data"));
            cleanup.add(site::close);
            try {
                fillFreeAndRestart(site, disk.mountpoint());
            } catch (AssertionError | RuntimeException | IOException e) {
                System.err.printf("==== log of the site (data on %s) ====%n%s==== end of site log ====%n", disk.device(), site.log());
                throw e;
            }
        }
    }

    private static void fillFreeAndRestart(TestingSite site, Path mountpoint) throws IOException {
        site.createImage("disk", "512M");
        Path filler = mountpoint.resolve("filler");
        ok("fallocate", "-l", "128M", filler.toString());
        TreeMap<Long, Integer> acknowledged = new TreeMap<>();

        writeUntilFull(site, acknowledged);
        assertReadBack(site, acknowledged);

        int beforeFreeing = acknowledged.size();
        Files.delete(filler);
        writeUntilFull(site, acknowledged);
        assertThat(acknowledged).as("MiB written once the filler was deleted").hasSizeGreaterThan(beforeFreeing);

        site.restart();
        assertReadBack(site, acknowledged);

        // Killed, then filled up: the site starts on a full file system, read-only when RocksDB finds no room to
        // reopen its index writable (how much its logs' preallocated space gives back depends on the file system's size).
        site.kill9();
        fillUp(filler);
        site.restart();
        assertReadBack(site, acknowledged);
        assertThat(write(site, List.of(acknowledged.lastKey() + 1), acknowledged).stdout()).contains(ENOSPC);

        Files.delete(filler);
        site.restart();
        assertThat(write(site, List.of(acknowledged.lastKey() + 1), acknowledged).exitCode()).isZero();
        assertReadBack(site, acknowledged);
    }

    /** Writes 1 MiB after 1 MiB after the last one acknowledged until they fail with ENOSPC, each with its own pattern. */
    private static void writeUntilFull(TestingSite site, TreeMap<Long, Integer> acknowledged) {
        long next = acknowledged.isEmpty() ? 0 : acknowledged.lastKey() + 1;
        List<Long> mebibytes = new ArrayList<>();
        for (long mib = next; mib < next + 200; mib++) {
            mebibytes.add(mib);
        }
        Tools.Result result = write(site, mebibytes, acknowledged);
        assertThat(result.stdout()).as("%s", result).contains(ENOSPC);
        assertThat(acknowledged).as("%s", result).containsKey(next);
    }

    /** Writes the given MiB of the image, one qemu-io command each, and adds those acknowledged; any failure but ENOSPC fails the test. */
    private static Tools.Result write(TestingSite site, List<Long> mebibytes, Map<Long, Integer> acknowledged) {
        List<String> command = new ArrayList<>(List.of("qemu-io", "-f", "raw"));
        for (long mib : mebibytes) {
            command.addAll(List.of("-c", "write -P 0x%02x %dM 1M".formatted(pattern(mib), mib)));
        }
        command.add(site.nbdUri("disk"));
        Tools.Result result = Tools.run(Tools.DEFAULT_TIMEOUT, command);
        Matcher wrote = WROTE.matcher(result.stdout());
        int written = 0;
        while (wrote.find()) {
            long mib = Long.parseLong(wrote.group(1)) / MIB;
            acknowledged.put(mib, pattern(mib));
            written++;
        }
        int refused = (int) result.stdout().lines().filter(ENOSPC::equals).count();
        assertThat(written + refused).as("writes acknowledged or refused with ENOSPC: %s", result).isEqualTo(mebibytes.size());
        return result;
    }

    /** Reads every acknowledged MiB back through a new connection, which opens the image again. */
    private static void assertReadBack(TestingSite site, Map<Long, Integer> acknowledged) {
        List<String> command = new ArrayList<>(List.of("qemu-io", "-f", "raw", "-r"));
        acknowledged.forEach((mib, pattern) -> command.addAll(List.of("-c", "read -P 0x%02x %dM 1M".formatted(pattern, mib))));
        command.add(site.nbdUri("disk"));
        Tools.Result result = Tools.run(Tools.DEFAULT_TIMEOUT, command);
        assertThat(result.exitCode()).as("%s", result).isZero();
        assertThat(result.stdout()).as("%s", result).doesNotContain("fail");
    }

    /** Fills the file system with {@code file} until no byte is left. */
    private static void fillUp(Path file) {
        byte[] block = new byte[4096];
        assertThatThrownBy(() -> {
            try (OutputStream out = Files.newOutputStream(file)) {
                while (true) {
                    out.write(block);
                }
            }
        }).hasMessageContaining("No space left on device");
    }

    /** A MiB's fill byte, never 0: a MiB that reads as zeros was not written. */
    private static int pattern(long mib) {
        return (int) (mib % 255) + 1;
    }
}
