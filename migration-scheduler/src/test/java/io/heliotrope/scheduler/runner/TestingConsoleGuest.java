package io.heliotrope.scheduler.runner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A guest that talks on its serial console: the newest kernel in /boot and an initramfs whose
 * /init (busybox) prints {@link #READY} and then answers each line it reads with "got: LINE".
 * Empty when there is no kernel or no static busybox (bin/test installs both).
 */
record TestingConsoleGuest(VmDefinition definition) {
    static final String READY = "CONSOLE-READY";
    private static final Path BUSYBOX = Path.of("/bin/busybox");
    private static final String INIT = """
            #!/bin/busybox sh
            /bin/busybox echo %s
            while /bin/busybox true; do read line; /bin/busybox echo "got: $line"; done
            """.formatted(READY);

    static Optional<TestingConsoleGuest> build(Path dir, String name) throws IOException, InterruptedException {
        Optional<Path> kernel;
        try (Stream<Path> boot = Files.list(Path.of("/boot"))) {
            kernel = boot.filter(file -> file.getFileName().toString().startsWith("vmlinuz-") && Files.isReadable(file)).max(Comparator.naturalOrder());
        }
        if (kernel.isEmpty() || !Files.isExecutable(BUSYBOX)) {
            return Optional.empty();
        }
        Path root = Files.createDirectories(dir.resolve("initramfs/bin"));
        Files.copy(BUSYBOX, root.resolve("busybox"));
        Path init = root.resolveSibling("init");
        Files.writeString(init, INIT);
        Files.setPosixFilePermissions(init, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path initrd = dir.resolve("initramfs.cpio");
        Process cpio = new ProcessBuilder("sh", "-c", "find . | cpio -o -H newc > " + initrd)
                .directory(root.getParent().toFile())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (cpio.waitFor() != 0) {
            throw new IOException("cpio failed: exit " + cpio.exitValue());
        }
        return Optional.of(new TestingConsoleGuest(new VmDefinition(name, 128L << 20, 1, List.of(), kernel.get().toString(), initrd.toString(),
                "console=ttyS0 quiet panic=0", null)));
    }
}
