package io.heliotrope.scheduler.runner;

import io.heliotrope.scheduler.qmp.MigrationInfo;

/** A {@link MigrationStatus} from what QEMU said and what the runner saw. */
final class MigrationStatuses {
    private MigrationStatuses() {}

    static MigrationStatus of(MigrationInfo info, QemuVm.MigrationView seen, String vmState) {
        MigrationInfo.Ram ram = info.ram();
        String error = info.errorDesc() != null ? info.errorDesc() : seen.error();
        return new MigrationStatus(
                info.status() == null ? "none" : info.status(),
                ram.total(),
                ram.remaining(),
                ram.transferred(),
                ram.mbps() * 1_000_000 / 8,
                info.expectedDowntime(),
                ram.dirtyPagesRate(),
                info.totalTime(),
                info.downtime(),
                seen.handover(),
                seen.handoverError(),
                seen.times(),
                error,
                vmState);
    }
}
