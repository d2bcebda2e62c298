/**
 * Moving running VMs between sites: {@code qmp} speaks QEMU's machine protocol,
 * {@code runner} runs a site's QEMUs (embedded in the site process), and
 * {@code migration} is the driver beside the controller that moves a VM with its
 * disks' leases (DESIGN.md sections 4 and 7).
 */
package io.heliotrope.scheduler;
