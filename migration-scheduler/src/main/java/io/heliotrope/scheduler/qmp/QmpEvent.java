package io.heliotrope.scheduler.qmp;

import static java.util.Objects.requireNonNull;

/**
 * An asynchronous QMP event, timed by QEMU ({@code timestamp}: seconds and microseconds,
 * read as microseconds since the epoch, on the host's clock).
 */
public sealed interface QmpEvent {
    long timestampMicros();

    /** The event's name on the wire. */
    String name();

    /** What the event says beyond its name (a MIGRATION's status), or "". */
    default String detail() {
        return "";
    }

    /** The guest stopped (paused, or stopped for the switchover). */
    record Stop(long timestampMicros) implements QmpEvent {
        @Override
        public String name() {
            return "STOP";
        }
    }

    record Resume(long timestampMicros) implements QmpEvent {
        @Override
        public String name() {
            return "RESUME";
        }
    }

    /** Sent only with the {@code events} migration capability on. */
    record Migration(long timestampMicros, String status) implements QmpEvent {
        public Migration {
            requireNonNull(status, "status is null");
        }

        @Override
        public String name() {
            return "MIGRATION";
        }

        @Override
        public String detail() {
            return status;
        }
    }

    /** QEMU is about to exit: {@code reason} is QEMU's (host-qmp-quit, guest-shutdown, host-signal, ...). */
    record Shutdown(long timestampMicros, boolean guest, String reason) implements QmpEvent {
        @Override
        public String name() {
            return "SHUTDOWN";
        }

        @Override
        public String detail() {
            return reason == null ? "" : reason;
        }
    }

    /** Any event we do not read further. */
    record Other(long timestampMicros, String name) implements QmpEvent {
        public Other {
            requireNonNull(name, "name is null");
        }
    }
}
