package io.heliotrope.it;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static io.heliotrope.it.Tools.ok;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A real ext4 file system on an image, through the kernel: nbdfuse exposes the export as
 * a file, a loop device makes it a block device (there is no kernel NBD driver here).
 */
class FilesystemIT {
    private static final Duration ATTACH_TIMEOUT = Duration.ofSeconds(30);

    @RegisterExtension
    static final SiteExtension site = new SiteExtension();

    @BeforeAll
    static void requireLoopAndFuse() {
        assumeTrue(Files.exists(Path.of("/dev/loop-control")), "no /dev/loop-control");
        assumeTrue(Files.exists(Path.of("/dev/fuse")), "no /dev/fuse");
    }

    @Test
    void ext4FileSurvivesUnmountAndReattach(@TempDir Path tmp) throws Exception {
        site.get().createImage("ext4", "256M");
        Path mountpoint = Files.createDirectory(tmp.resolve("mnt"));
        Path file = mountpoint.resolve("payload.bin");
        String written;

        try (Cleanup cleanup = new Cleanup()) {
            String device = attach(cleanup, "ext4", Files.createDirectory(tmp.resolve("fuse-1")));
            ok("mkfs.ext4", "-q", device);
            mount(cleanup, device, mountpoint);
            TestData.randomFile(file, 20 << 20);
            ok("sync");
            written = Tools.sha256(file);
        }
        assertThat(file).as("unmounted").doesNotExist();

        try (Cleanup cleanup = new Cleanup()) {
            String device = attach(cleanup, "ext4", Files.createDirectory(tmp.resolve("fuse-2")));
            mount(cleanup, device, mountpoint);
            assertThat(Tools.sha256(file)).isEqualTo(written);
        }
    }

    /** nbdfuse + losetup; returns the loop device. Undone by {@code cleanup}: losetup -d, fusermount3 -u, stop nbdfuse. */
    private static String attach(Cleanup cleanup, String image, Path fuseDir) {
        Path exported = fuseDir.resolve("nbd");
        ChildProcess nbdfuse = ChildProcess.start("nbdfuse", List.of("nbdfuse", exported.toString(), site.get().nbdUri(image)));
        cleanup.add(nbdfuse::close);
        Await.until(exported + " appears", ATTACH_TIMEOUT, () -> {
            assertThat(nbdfuse.isAlive()).as("nbdfuse is running; output: %s", nbdfuse.output()).isTrue();
            return Files.exists(exported);
        });
        cleanup.add(() -> ok("fusermount3", "-u", fuseDir.toString()));
        String device = ok("losetup", "-f", "--show", exported.toString()).stdout().strip();
        cleanup.add(() -> ok("losetup", "-d", device));
        return device;
    }

    private static void mount(Cleanup cleanup, String device, Path mountpoint) {
        ok("mount", "-t", "ext4", device, mountpoint.toString());
        cleanup.add(() -> ok("umount", mountpoint.toString()));
    }
}
