package io.heliotrope.controller.vm;

import io.heliotrope.controller.Names;
import io.heliotrope.controller.zookeeper.Json;
import io.heliotrope.controller.zookeeper.Versioned;
import io.heliotrope.controller.zookeeper.ZooKeeperLayout;
import io.heliotrope.controller.zookeeper.ZooKeeperStore;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.util.List;
import java.util.function.UnaryOperator;

import static java.util.Objects.requireNonNull;

/**
 * The VMs, one JSON znode each under {@code ROOT/vms}. Every change is a compare-and-set on
 * the znode's version: of two controllers racing, one wins and the other re-reads.
 */
final class VmRegistry {
    private static final int MAX_ATTEMPTS = 16;

    private final ZooKeeperStore zk;
    private final ZooKeeperLayout layout;

    VmRegistry(ZooKeeperStore zk, ZooKeeperLayout layout) {
        this.zk = requireNonNull(zk, "zk is null");
        this.layout = requireNonNull(layout, "layout is null");
        zk.ensurePath(layout.vms());
    }

    Vm create(Vm vm) {
        if (!zk.create(layout.vm(vm.name()), Json.write(vm))) {
            throw new HeliotropeException(ErrorCode.VM_EXISTS, "VM '" + vm.name() + "' already exists");
        }
        return vm;
    }

    Vm get(String name) {
        return read(name).value();
    }

    /** Every VM, in name order; one deleted while they are read is left out. */
    List<Vm> list() {
        return zk.readChildrenJson(layout.vms(), Vm.class);
    }

    void delete(String name) {
        read(name);
        zk.deleteTree(layout.vm(name));
    }

    /**
     * Applies {@code change} with compare-and-set, re-reading after a lost race; returns the VM
     * as written (as read, unwritten, when the change leaves it as it was).
     */
    Vm update(String name, UnaryOperator<Vm> change) {
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            Versioned<Vm> current = read(name);
            Vm next = change.apply(current.value());
            if (next.equals(current.value()) || zk.setData(layout.vm(name), Json.write(next), current.version())) {
                return next;
            }
        }
        throw new HeliotropeException(ErrorCode.STORAGE_FAILURE, "VM '" + name + "' kept changing while being updated; try again");
    }

    private Versioned<Vm> read(String name) {
        return zk.readJson(layout.vm(Names.vm(name)), Vm.class).orElseThrow(() -> notFound(name));
    }

    static HeliotropeException notFound(String name) {
        return new HeliotropeException(ErrorCode.VM_NOT_FOUND, "VM '" + name + "' does not exist");
    }
}
