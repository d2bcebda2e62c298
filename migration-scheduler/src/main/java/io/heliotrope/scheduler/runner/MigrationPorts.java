package io.heliotrope.scheduler.runner;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.util.List;

/** The site's incoming migration ports, each taken by one destination VM at a time. Thread-safe. */
final class MigrationPorts {
    private final List<Integer> ports;
    private final String[] owners;

    MigrationPorts(List<Integer> ports) {
        this.ports = List.copyOf(ports);
        this.owners = new String[ports.size()];
    }

    int port(int index) {
        return ports.get(index);
    }

    /** Takes a free port for {@code vm}; {@code VM_BUSY} when every port is taken. */
    synchronized int take(String vm) {
        for (int i = 0; i < owners.length; i++) {
            if (owners[i] == null) {
                owners[i] = vm;
                return i;
            }
        }
        throw new HeliotropeException(ErrorCode.VM_BUSY, "no free migration port for vm " + vm + ": all " + owners.length + " take incoming migrations now");
    }

    /** Marks a port taken by a VM found listening on it after a restart. */
    synchronized void hold(int index, String vm) {
        owners[index] = vm;
    }

    /** Gives the port back, if {@code vm} still holds it. */
    synchronized void release(int index, String vm) {
        if (index >= 0 && index < owners.length && vm.equals(owners[index])) {
            owners[index] = null;
        }
    }
}
