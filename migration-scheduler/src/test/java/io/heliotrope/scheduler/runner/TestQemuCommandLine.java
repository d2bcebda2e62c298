package io.heliotrope.scheduler.runner;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class TestQemuCommandLine {
    private final VmFiles files = VmFiles.of(Path.of("/state"), "vm1");
    private final InetSocketAddress nbd = new InetSocketAddress("127.0.0.1", 10809);

    @Test
    void attachesEachDiskAsAnNbdBlockdevThatReconnects() {
        List<String> line = QemuCommandLine.of("qemu", new VmDefinition("vm1", 256L << 20, 2, List.of("root", "data"), "/k", "/i", "console=ttyS0", null), files, nbd, false);
        assertThat(String.join(" ", line)).isEqualTo("qemu -name vm1 -machine q35,accel=tcg -m 256M -smp 2 -nodefaults -nic none -display none"
                + " -daemonize -pidfile /state/vms/vm1/qemu.pid -D /state/vms/vm1/qemu.log"
                + " -chardev socket,id=qmp,path=/state/vms/vm1/qmp.sock,server=on,wait=off -mon chardev=qmp,mode=control"
                + " -chardev socket,id=console,path=/state/vms/vm1/console.sock,server=on,wait=off,logfile=/state/vms/vm1/console.log,logappend=on"
                + " -serial chardev:console -kernel /k -initrd /i -append console=ttyS0"
                + " -blockdev driver=nbd,node-name=nbd0,server.type=inet,server.host=127.0.0.1,server.port=10809,export=root,reconnect-delay=5"
                + " -blockdev driver=raw,node-name=disk0,file=nbd0 -device virtio-blk-pci,drive=disk0,id=virtio-disk0"
                + " -blockdev driver=nbd,node-name=nbd1,server.type=inet,server.host=127.0.0.1,server.port=10809,export=data,reconnect-delay=5"
                + " -blockdev driver=raw,node-name=disk1,file=nbd1 -device virtio-blk-pci,drive=disk1,id=virtio-disk1");
    }

    @Test
    void theDestinationMatchesTheSourceDeviceForDevice() {
        VmDefinition vm = new VmDefinition("vm1", 64L << 20, 1, List.of("root"), null, null, null, "kvm");
        List<String> source = QemuCommandLine.of("qemu", vm, files, nbd, false);
        List<String> destination = QemuCommandLine.of("qemu", vm, files, nbd, true);
        assertThat(destination).startsWith(source.toArray(String[]::new)).endsWith("-incoming", "defer", "-S").hasSize(source.size() + 3);
        assertThat(source).contains("q35,accel=kvm", "virtio-blk-pci,drive=disk0,id=virtio-disk0,bootindex=0");
    }
}
