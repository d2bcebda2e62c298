package io.heliotrope.controller.vm;

import io.heliotrope.controller.Names;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.util.HashSet;
import java.util.List;

import static java.util.Objects.requireNonNullElse;

/**
 * What a VM is, as defined: its name (the rule of image names), memory, vCPUs, its disks
 * (images of the catalog, attached in this order: the first is virtio disk 0) and its boot
 * source: a kernel (with initrd and command line) on every site's host, else the first disk.
 * {@code accel} is {@code tcg} (the default) or {@code kvm}.
 */
public record VmSpec(String name, long memoryBytes, int vcpus, List<String> disks, String kernel, String initrd, String append, String accel) {
    public static final long MEMORY_UNIT = 1L << 20;
    public static final long MIN_MEMORY = 16 * MEMORY_UNIT;
    public static final int MAX_VCPUS = 64;
    public static final String TCG = "tcg";
    public static final String KVM = "kvm";

    public VmSpec {
        Names.vm(name);
        disks = List.copyOf(requireNonNullElse(disks, List.of()));
        kernel = requireNonNullElse(kernel, "");
        initrd = requireNonNullElse(initrd, "");
        append = requireNonNullElse(append, "");
        accel = accel == null || accel.isEmpty() ? TCG : accel;
        if (memoryBytes < MIN_MEMORY || memoryBytes % MEMORY_UNIT != 0) {
            throw invalid(name, "memory must be at least 16 MiB and a whole number of MiB, not " + Long.toUnsignedString(memoryBytes) + " bytes");
        }
        if (vcpus < 1 || vcpus > MAX_VCPUS) {
            throw invalid(name, "vCPUs must be 1 to " + MAX_VCPUS + ", not " + Integer.toUnsignedString(vcpus));
        }
        if (!accel.equals(TCG) && !accel.equals(KVM)) {
            throw invalid(name, "accel must be " + TCG + " or " + KVM + ", not '" + accel + "'");
        }
        if (disks.isEmpty() && kernel.isEmpty()) {
            throw invalid(name, "nothing to boot: give it a disk or a kernel");
        }
        if (kernel.isEmpty() && !(initrd.isEmpty() && append.isEmpty())) {
            throw invalid(name, "an initrd or a kernel command line needs a kernel");
        }
        if (new HashSet<>(disks).size() != disks.size()) {
            throw invalid(name, "each image may be one of its disks once, not " + disks);
        }
    }

    private static HeliotropeException invalid(String name, String reason) {
        return new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "VM '" + name + "': " + reason);
    }
}
