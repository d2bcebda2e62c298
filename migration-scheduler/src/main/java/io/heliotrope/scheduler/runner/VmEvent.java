package io.heliotrope.scheduler.runner;

import static java.util.Objects.requireNonNull;

/**
 * Something that happened to a VM: a QMP event (STOP, RESUME, MIGRATION, SHUTDOWN, ...) at
 * QEMU's time, or the runner's own ({@link #HANDOVER}, {@link #RESUMED_BY_RUNNER},
 * {@link #NOT_RESUMED}, {@link #EXITED}).
 *
 * @param detail a MIGRATION's status, or what the runner's event says
 */
public record VmEvent(long timestampMicros, String event, String detail) {
    public static final String HANDOVER = "HANDOVER";
    public static final String RESUMED_BY_RUNNER = "RESUMED_BY_RUNNER";
    /** A destination that will not be resumed by the runner (a disk not active in time); detail: why. */
    public static final String NOT_RESUMED = "NOT_RESUMED";
    public static final String EXITED = "EXITED";

    public VmEvent {
        requireNonNull(event, "event is null");
        requireNonNull(detail, "detail is null");
    }
}
