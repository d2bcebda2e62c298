package io.heliotrope.it;

import io.heliotrope.proto.controller.v1.ImageStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.heliotrope.it.Tools.helio;
import static io.heliotrope.it.Tools.ok;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code helio image import} and {@code export} through the real CLI into a site joined to
 * a controller (and a standalone one), read back with nbdcopy and compared with
 * qemu-img: raw and qcow2 files in, raw and qcow2 files out.
 */
class ImageTransferIT {
    private static final long MIB = 1 << 20;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @RegisterExtension
    static final ControllerExtension cluster = new ControllerExtension(1, "--lease-ttl", "60s");

    private static TestingSite site;
    private static TestingSite standalone;

    @BeforeAll
    static void startSites() {
        site = TestingSite.start("--site", "site-a", "--controller", cluster.controller(0).target());
        standalone = TestingSite.start();
    }

    @AfterAll
    static void stopSites() {
        try (Cleanup cleanup = new Cleanup()) {
            for (TestingSite started : new TestingSite[] {site, standalone}) {
                if (started != null) {
                    cleanup.add(started::close);
                }
            }
        }
    }

    /** {@code helio image ARGS} against the controller, through site-a. */
    private static Tools.Result image(String... args) {
        List<String> command = new ArrayList<>(List.of("image"));
        command.addAll(List.of(args));
        command.addAll(List.of("--controller", cluster.controller(0).target()));
        return helio(command.toArray(String[]::new));
    }

    @Test
    void rawFileImportedUnderTheLeaseReadsBackByteForByteAndExportsAsRawAndQcow2(@TempDir Path tmp) throws Exception {
        Path original = TestData.truncate(tmp.resolve("disk.raw"), 8 * MIB + 1000);
        TestData.writeRandom(original, 0, MIB);
        TestData.writeRandom(original, 5 * MIB, 10_000);

        assertThat(image("import", original.toString(), "raw-in", "--site", "site-a").assertSuccess().stdout())
                .isEqualTo("imported " + original + " (raw) as raw-in: 8.0 MiB, 1.0 MiB of data sent\n");

        ControllerClient controller = cluster.client(0);
        Await.until("site-a's close of raw-in reached the controller", TIMEOUT, () -> {
            ImageStatus status = controller.status("raw-in");
            return status.getLease().getHolder().isEmpty() && status.getMetaSeq() > 0;
        });
        ImageStatus status = controller.status("raw-in");
        assertThat(status.getLease().getEpoch()).as("the import's writes went under a write lease").isPositive();
        assertThat(SiteCloseToOpenIT.blocksAt(status, "site-a")).as("data blocks current at site-a").isEqualTo(256 + 3);
        assertThat(status.getConfig().getSizeBytes()).isEqualTo(8 * MIB + 4096);

        Path readBack = tmp.resolve("read-back.raw");
        ok("nbdcopy", site.nbdUri("raw-in"), readBack.toString());
        assertThat(Files.readAllBytes(readBack)).as("the image, byte for byte: the file padded with zeros to 4096 bytes")
                .isEqualTo(Arrays.copyOf(Files.readAllBytes(original), (int) (8 * MIB + 4096)));

        Path raw = tmp.resolve("out.raw");
        Path qcow2 = tmp.resolve("out.qcow2");
        assertThat(image("export", "raw-in", raw.toString()).assertSuccess().stdout())
                .isEqualTo("exported raw-in to " + raw + " (raw): 8.0 MiB, 1.0 MiB of data written\n");
        assertThat(image("export", "raw-in", qcow2.toString()).assertSuccess().stdout())
                .isEqualTo("exported raw-in to " + qcow2 + " (qcow2): 8.0 MiB\n");
        ok("qemu-img", "compare", "-f", "raw", "-F", "raw", original.toString(), raw.toString());
        ok("qemu-img", "compare", "-f", "raw", "-F", "qcow2", original.toString(), qcow2.toString());
        assertThat(Tools.allocatedBytes(raw)).as("the raw export keeps the holes").isLessThan(2 * MIB);
    }

    @Test
    void qcow2FileIsDetectedImportedAtItsVirtualSizeAndExportedAgain(@TempDir Path tmp) throws Exception {
        Path original = tmp.resolve("cloud.qcow2");
        ok("qemu-img", "create", "-f", "qcow2", original.toString(), "8M");
        ok("qemu-io", "-c", "write -P 0xab 0 1M", "-c", "write -P 0xcd 6M 64k", original.toString());

        assertThat(image("import", original.toString(), "qcow2-in").assertSuccess().stdout())
                .isEqualTo("imported " + original + " (qcow2) as qcow2-in: 8.0 MiB\n");

        Path expected = tmp.resolve("expected.raw");
        ok("qemu-img", "convert", "-f", "qcow2", "-O", "raw", original.toString(), expected.toString());
        Path readBack = tmp.resolve("read-back.raw");
        ok("nbdcopy", site.nbdUri("qcow2-in"), readBack.toString());
        assertThat(Files.mismatch(expected, readBack)).as("the image against qemu-img's own conversion").isEqualTo(-1);

        Path exported = tmp.resolve("out.img");
        image("export", "qcow2-in", exported.toString(), "--format", "qcow2").assertSuccess();
        assertThat(ok("qemu-img", "info", "--output=json", exported.toString()).stdout()).contains("\"format\": \"qcow2\"");
        ok("qemu-img", "compare", "-f", "qcow2", "-F", "qcow2", original.toString(), exported.toString());
    }

    @Test
    void standaloneSiteImportsAndExportsThroughItsOwnNbdServer(@TempDir Path tmp) {
        Path original = tmp.resolve("small.qcow2");
        ok("qemu-img", "create", "-f", "qcow2", original.toString(), "4M");
        ok("qemu-io", "-c", "write -P 0x5a 1M 512k", original.toString());

        standalone.image("import", original.toString(), "alone").assertSuccess();

        Path raw = tmp.resolve("alone.raw");
        standalone.image("export", "alone", raw.toString()).assertSuccess();
        ok("qemu-img", "compare", "-f", "qcow2", "-F", "raw", original.toString(), raw.toString());
        assertThat(standalone.image("show", "alone").assertSuccess().stdout()).contains("data blocks: 128 ");
    }

    @Test
    void importThatFailsHalfwayRemovesItsImage(@TempDir Path tmp) throws Exception {
        Path broken = tmp.resolve("broken.qcow2");
        ok("qemu-img", "create", "-f", "qcow2", broken.toString(), "8M");
        ok("qemu-io", "-c", "write -P 0xab 0 1M", broken.toString());
        pointFirstL2TableAtAnUnalignedOffset(broken);

        Tools.Result failed = image("import", broken.toString(), "half-made");

        assertOneLineUserError(failed);
        assertThat(failed.stderr()).startsWith("helio: qemu-img: ").endsWith(" (the new image 'half-made' is removed)\n");
        assertThat(image("show", "half-made").stderr()).contains("'half-made'", "does not exist");
    }

    @Test
    void importIntoASiteOutOfSpaceFailsOnOneLineAndRemovesItsImage(@TempDir Path tmp) throws Exception {
        LoopFileSystem.assumeAvailable();
        Path big = TestData.randomFile(tmp.resolve("big.raw"), 192 * MIB);
        try (Cleanup cleanup = new Cleanup()) {
            LoopFileSystem disk = LoopFileSystem.mount(tmp, "128M", cleanup);
            TestingSite small = TestingSite.startIn(disk.mountpoint().resolve("data"));
            cleanup.add(small::close);

            Tools.Result failed = small.image("import", big.toString(), "too-big");

            assertOneLineUserError(failed);
            assertThat(failed.stderr()).startsWith("helio: the site is out of space: ").endsWith(" (the new image 'too-big' is removed)\n");
            assertThat(small.image("show", "too-big").stderr()).isEqualTo("helio: image 'too-big' does not exist\n");
        }
    }

    @Test
    void mistakesAreOneLineUserErrors(@TempDir Path tmp) {
        Path file = TestData.randomFile(tmp.resolve("one.raw"), 64 * 1024);
        image("import", file.toString(), "once").assertSuccess();

        assertUserError(image("import", tmp.resolve("missing.raw").toString(), "never"),
                "helio: cannot import " + tmp.resolve("missing.raw") + ": no such file");
        assertUserError(image("import", file.toString(), "never", "--format", "qcow3"),
                "helio: unknown image format 'qcow3' (known: raw, qcow2, qed, vmdk, vdi, vhdx, vpc)");
        assertUserError(image("import", file.toString(), "once"), "helio: image 'once' already exists");
        assertUserError(image("export", "once", file.toString()), "helio: cannot export to " + file + ": it exists (use --force to overwrite)");
        assertUserError(image("export", "nothing", tmp.resolve("nothing.raw").toString()), "helio: image 'nothing' does not exist");
        assertThat(image("show", "never").exitCode()).as("nothing was created").isEqualTo(1);
    }

    @Test
    void withoutQemuImgAQcow2ImportNamesThePackageToInstall(@TempDir Path tmp) {
        Path original = tmp.resolve("needs-qemu.qcow2");
        ok("qemu-img", "create", "-f", "qcow2", original.toString(), "4M");
        List<String> command = new ArrayList<>(List.of("/usr/bin/env", "PATH=" + tmp.resolve("no-tools")));
        command.addAll(Tools.helioCommand(List.of(), "image", "import", original.toString(), "no-qemu", "--controller", cluster.controller(0).target()));

        assertUserError(Tools.run(Tools.DEFAULT_TIMEOUT, command),
                "helio: importing a qcow2 image needs qemu-img, which is not installed (Debian package qemu-utils)");
    }

    @Test
    void progressIsDrawnOnlyWhenAskedOrOnATerminal(@TempDir Path tmp) {
        Path file = TestData.randomFile(tmp.resolve("progress.raw"), 4 * MIB);

        Tools.Result quiet = image("import", file.toString(), "quiet");
        Tools.Result shown = image("import", file.toString(), "shown", "--progress");

        assertThat(quiet.assertSuccess().stderr()).as("stderr is not a terminal here").isEmpty();
        assertThat(shown.assertSuccess().stderr()).startsWith("\r\033[Kshown: ").contains(" of 4.0 MiB (").endsWith("\r\033[K");
    }

    /** Sets the first L1 entry to an L2 table offset that is not cluster-aligned: qemu-img info still reads the file, a read of its data fails. */
    private static void pointFirstL2TableAtAnUnalignedOffset(Path qcow2) throws IOException {
        try (RandomAccessFile file = new RandomAccessFile(qcow2.toFile(), "rw")) {
            file.seek(40);
            long l1TableOffset = file.readLong();
            file.seek(l1TableOffset);
            file.writeLong(0x8000_0000_0001_0200L);
        }
    }

    private static void assertUserError(Tools.Result result, String message) {
        assertOneLineUserError(result);
        assertThat(result.stderr()).isEqualTo(message + "\n");
    }

    private static void assertOneLineUserError(Tools.Result result) {
        assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
        assertThat(result.stderrLines()).as(result.toString()).singleElement().asString().startsWith("helio: ");
        assertThat(result.stdout()).as(result.toString()).isEmpty();
    }
}
