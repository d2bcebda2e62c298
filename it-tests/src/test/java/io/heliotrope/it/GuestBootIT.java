package io.heliotrope.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static io.heliotrope.it.Tools.ok;
import static org.assertj.core.api.Assertions.assertThat;

/** A QEMU (TCG) guest boots from an image over NBD and writes to its disk; see src/test/guest/README.md. */
class GuestBootIT {
    private static final Path MODULE = Path.of(System.getProperty("basedir", "."));
    private static final Path GUEST = MODULE.resolve("target/guest");

    @RegisterExtension
    static final SiteExtension site = new SiteExtension();

    @Test
    void guestBootsFromImageAndWritesMarker(@TempDir Path tmp) {
        ok("bash", MODULE.resolve("src/test/guest/build-guest.sh").toString(), GUEST.toString());
        site.get().image("import", GUEST.resolve("root.img").toString(), "guest-root").assertSuccess();
        String nonce = UUID.randomUUID().toString().replace("-", "");

        Tools.Result qemu = Tools.run(Duration.ofSeconds(180), List.of("qemu-system-x86_64",
                "-machine", "q35,accel=tcg", "-m", "256", "-nographic", "-no-reboot", "-nic", "none",
                "-kernel", GUEST.resolve("vmlinuz").toString(),
                "-initrd", GUEST.resolve("initrd.img").toString(),
                "-append", "console=ttyS0 panic=-1 quiet helio.nonce=" + nonce,
                "-drive", "file=" + site.get().nbdUri("guest-root") + ",format=raw,if=virtio,cache=none"));

        assertThat(qemu.stdout()).as(qemu.toString()).contains("HELIO-GUEST: wrote marker");
        assertThat(qemu.exitCode()).as(qemu.toString()).isZero();
        Path disk = tmp.resolve("guest-root.img");
        site.get().image("export", "guest-root", disk.toString()).assertSuccess();
        assertThat(ok("debugfs", "-R", "cat /heliotrope-marker", disk.toString()).stdout())
                .startsWith("written-by-guest uptime=")
                .contains("nonce=" + nonce + "\n");
        ok("e2fsck", "-fn", disk.toString());
    }
}
