package io.heliotrope.scheduler.spi;

/**
 * A placement: the site of each VM of the application. The search hands the same mutable
 * plan to many calls, so a scorer must not keep it; copy {@link #site} values out instead.
 */
public interface Plan {
    /** What {@link #site} returns for a VM a partial plan has not placed yet. */
    int UNASSIGNED = -1;

    /** The number of VMs, {@code Application.vms().size()}. */
    int size();

    /** The site of VM {@code vm}, or {@link #UNASSIGNED}. */
    int site(int vm);
}
