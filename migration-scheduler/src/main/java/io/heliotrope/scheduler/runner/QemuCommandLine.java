package io.heliotrope.scheduler.runner;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The QEMU command line of a VM. A migration's destination gets the source's line device for
 * device (only {@code -incoming defer -S} added), as QEMU requires: both are built here.
 */
public final class QemuCommandLine {
    /** Seconds QEMU waits before reconnecting a dropped NBD connection, instead of failing the guest's I/O. */
    static final int NBD_RECONNECT_DELAY_SECONDS = 5;

    private QemuCommandLine() {}

    public static List<String> of(String qemu, VmDefinition vm, VmFiles files, InetSocketAddress nbd, boolean incoming) {
        List<String> args = new ArrayList<>(List.of(
                qemu,
                "-name", vm.name(),
                "-machine", "q35,accel=" + vm.accel(),
                "-m", (vm.memoryBytes() >> 20) + "M",
                "-smp", Integer.toString(vm.vcpus()),
                "-nodefaults",
                "-nic", "none",
                "-display", "none",
                "-daemonize",
                "-pidfile", files.pidfile().toString(),
                "-D", files.qemuLog().toString(),
                "-chardev", "socket,id=qmp,path=" + files.qmpSocket() + ",server=on,wait=off",
                "-mon", "chardev=qmp,mode=control",
                // logfile= keeps the console even while no one reads its socket.
                "-chardev", "socket,id=console,path=" + files.consoleSocket() + ",server=on,wait=off,logfile=" + files.consoleLog() + ",logappend=on",
                "-serial", "chardev:console"));
        if (!vm.kernel().isEmpty()) {
            args.addAll(List.of("-kernel", vm.kernel()));
            if (!vm.initrd().isEmpty()) {
                args.addAll(List.of("-initrd", vm.initrd()));
            }
            if (!vm.append().isEmpty()) {
                args.addAll(List.of("-append", vm.append()));
            }
        }
        for (int i = 0; i < vm.disks().size(); i++) {
            args.addAll(List.of(
                    "-blockdev", "driver=nbd,node-name=nbd" + i + ",server.type=inet,server.host=" + nbd.getHostString()
                            + ",server.port=" + nbd.getPort() + ",export=" + vm.disks().get(i) + ",reconnect-delay=" + NBD_RECONNECT_DELAY_SECONDS,
                    "-blockdev", "driver=raw,node-name=disk" + i + ",file=nbd" + i,
                    "-device", "virtio-blk-pci,drive=disk" + i + ",id=virtio-disk" + i + (i == 0 && vm.kernel().isEmpty() ? ",bootindex=0" : "")));
        }
        if (incoming) {
            args.addAll(List.of("-incoming", "defer", "-S"));
        }
        return List.copyOf(args);
    }
}
