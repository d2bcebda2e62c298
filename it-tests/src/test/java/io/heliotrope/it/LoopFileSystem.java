package io.heliotrope.it;

import java.nio.file.Files;
import java.nio.file.Path;

import static io.heliotrope.it.Tools.ok;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** A small ext4 on a loop device, mounted in a test's directory: a disk that fills up. Needs root. */
record LoopFileSystem(String device, Path mountpoint) {
    /** Skips the test where a loop device cannot be set up. */
    static void assumeAvailable() {
        assumeTrue(Files.exists(Path.of("/dev/loop-control")), "no /dev/loop-control: a small ext4 needs a loop device");
        assumeTrue(Tools.run("id", "-u").stdout().strip().equals("0"), "not root: only root may set up a loop device and mount it");
    }

    /** An ext4 of {@code size} (e.g. 384M) in {@code dir}, mounted at {@code dir/mnt}; {@code cleanup} unmounts and detaches it. */
    static LoopFileSystem mount(Path dir, String size, Cleanup cleanup) throws Exception {
        Path image = dir.resolve("ext4.img");
        Path mountpoint = Files.createDirectory(dir.resolve("mnt"));
        ok("truncate", "-s", size, image.toString());
        ok("mkfs.ext4", "-q", "-m", "0", image.toString());
        String device = ok("losetup", "-f", "--show", image.toString()).stdout().strip();
        cleanup.add(() -> ok("losetup", "-d", device));
        ok("mount", "-t", "ext4", device, mountpoint.toString());
        cleanup.add(() -> ok("umount", mountpoint.toString()));
        return new LoopFileSystem(device, mountpoint);
    }
}
