package io.heliotrope.scheduler.runner;

import java.util.List;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

/**
 * What the runner starts: a VM's name, memory, vCPUs, its disks (Heliotrope images, attached
 * over NBD from this site in this order) and an optional direct kernel boot.
 *
 * @param accel "tcg" (the default) or "kvm"
 */
public record VmDefinition(
        String name,
        long memoryBytes,
        int vcpus,
        List<String> disks,
        String kernel,
        String initrd,
        String append,
        String accel) {
    public VmDefinition {
        requireNonNull(name, "name is null");
        disks = List.copyOf(requireNonNullElse(disks, List.of()));
        kernel = requireNonNullElse(kernel, "");
        initrd = requireNonNullElse(initrd, "");
        append = requireNonNullElse(append, "");
        accel = requireNonNullElse(accel, "").isEmpty() ? "tcg" : accel;
        vcpus = vcpus == 0 ? 1 : vcpus;
    }
}
