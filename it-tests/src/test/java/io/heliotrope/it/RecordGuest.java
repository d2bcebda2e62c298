package io.heliotrope.it;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.heliotrope.it.Tools.ok;
import static java.util.Objects.requireNonNull;

/**
 * The records guest of {@code src/test/guest/build-guest.sh}: Debian's kernel and an initramfs
 * whose init writes numbered records to its only disk, {@code /dev/vda}, about every 200 ms
 * until it is powered off ({@link Records} reads what it acknowledged and checks the disk).
 * No root file system: any raw disk of at least a few MiB will do, 64 MiB holds 16384 records
 * (about 80 minutes of them).
 */
record RecordGuest(Path kernel, Path initrd) {
    private static final Path MODULE = Path.of(System.getProperty("basedir", "."));
    /** Where GuestBootIT's guest is built too: one build (its stamp makes a re-run a no-op) gives both. */
    private static final Path BUILD = MODULE.resolve("target/guest");

    RecordGuest {
        requireNonNull(kernel, "kernel is null");
        requireNonNull(initrd, "initrd is null");
    }

    /** Builds the guest into {@code target/guest} unless it is up to date there (a few seconds the first time). */
    static RecordGuest build() {
        ok("bash", MODULE.resolve("src/test/guest/build-guest.sh").toString(), BUILD.toString());
        return new RecordGuest(BUILD.resolve("vmlinuz"), BUILD.resolve("records-initrd.img"));
    }

    /** The kernel command line: console on ttyS0, and the nonce every record carries (letters and digits). */
    static String kernelArgs(String nonce) {
        if (!nonce.matches("[A-Za-z0-9]+")) {
            throw new IllegalArgumentException("nonce must be letters and digits: " + nonce);
        }
        return "console=ttyS0 panic=-1 quiet helio.nonce=" + nonce;
    }

    static Path consoleLog(Path stateDir) {
        return stateDir.resolve("console.log");
    }

    static Path consoleSocket(Path stateDir) {
        return stateDir.resolve("console.sock");
    }

    static Path qmpSocket(Path stateDir) {
        return stateDir.resolve("qmp.sock");
    }

    /**
     * A QEMU (TCG) command line for this guest: 128 MiB, no NIC, no display, the disk on the NBD
     * export {@code host:port/export} through {@code -blockdev} (the empty export name for
     * nbdkit), the serial console on a socket whose output is also logged to
     * {@link #consoleLog}, QMP on {@link #qmpSocket}, all in {@code stateDir}. {@code extra}
     * goes last ({@code -incoming tcp:...}, {@code -S}). A destination for a migration must be
     * started with the same arguments but {@code extra}.
     */
    List<String> qemuCommand(String nonce, String host, int port, String export, Path stateDir, String... extra) {
        List<String> command = new ArrayList<>(List.of("qemu-system-x86_64",
                "-machine", "q35,accel=tcg", "-m", "128", "-display", "none", "-no-reboot", "-nic", "none",
                "-kernel", kernel.toString(), "-initrd", initrd.toString(), "-append", kernelArgs(nonce),
                "-blockdev", "driver=nbd,node-name=records,server.type=inet,server.host=%s,server.port=%d%s,cache.direct=on"
                        .formatted(host, port, export.isEmpty() ? "" : ",export=" + export),
                "-device", "virtio-blk-pci,drive=records",
                "-chardev", "socket,id=console,path=%s,server=on,wait=off,logfile=%s"
                        .formatted(consoleSocket(stateDir), consoleLog(stateDir)),
                "-serial", "chardev:console",
                "-qmp", "unix:%s,server=on,wait=off".formatted(qmpSocket(stateDir))));
        command.addAll(Arrays.asList(extra));
        return command;
    }
}
