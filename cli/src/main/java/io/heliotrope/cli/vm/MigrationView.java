package io.heliotrope.cli.vm;

import io.heliotrope.proto.scheduler.v1.EnsembleProgress;
import io.heliotrope.proto.scheduler.v1.MigrationPhase;
import io.heliotrope.proto.scheduler.v1.MigrationProgress;

import java.io.PrintStream;
import java.util.Locale;

import static io.heliotrope.cli.print.Sizes.format;

/**
 * A migration's progress on a terminal: one line, redrawn at each report (phase, RAM left,
 * the destination's storage backlog, rate, time left) and erased at the end. On anything
 * but a terminal ({@code out} null) it shows nothing: the result says it all.
 */
final class MigrationView implements AutoCloseable {
    private static final String ERASE_LINE = "\r\033[K";

    private final PrintStream out;
    private boolean drawn;

    MigrationView(PrintStream out) {
        this.out = out;
    }

    void show(MigrationProgress progress) {
        if (out == null || progress.getPhase() == MigrationPhase.MIGRATION_PHASE_DONE) {
            return;
        }
        out.print(ERASE_LINE + line(progress));
        out.flush();
        drawn = true;
    }

    /** VMs switched over together: each one's phase and RAM left, on one line. */
    void show(EnsembleProgress progress) {
        if (out == null || progress.getDone()) {
            return;
        }
        StringBuilder line = new StringBuilder();
        for (MigrationProgress member : progress.getMembersList()) {
            line.append(line.length() == 0 ? "" : " | ").append(member.getVm()).append(' ').append(phase(member.getPhase()));
            if (member.getRamTotal() > 0 && member.getPhase() == MigrationPhase.MIGRATION_PHASE_PRECOPY) {
                line.append(' ').append(format(member.getRamRemaining())).append(" left");
            }
        }
        out.print(ERASE_LINE + line);
        out.flush();
        drawn = true;
    }

    static String line(MigrationProgress progress) {
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%s %s -> %s  %-11s %5.1f s", progress.getVm(), progress.getFromSite(),
                progress.getToSite(), phase(progress.getPhase()), progress.getElapsedMillis() / 1000.0));
        if (progress.getRamTotal() > 0) {
            line.append("  RAM ").append(format(progress.getRamRemaining())).append(" of ").append(format(progress.getRamTotal())).append(" left");
            line.append("  storage backlog ").append(format(progress.getStorageBacklogBytes()));
            line.append("  ").append(format((long) progress.getRate())).append("/s");
            if (progress.getTimeLeftMillis() > 0) {
                line.append(String.format(Locale.ROOT, "  ~%.1f s left", progress.getTimeLeftMillis() / 1000.0));
            }
        }
        return line.toString();
    }

    private static String phase(MigrationPhase phase) {
        return switch (phase) {
            case MIGRATION_PHASE_PREPARING -> "preparing";
            case MIGRATION_PHASE_PRECOPY -> "pre-copy";
            case MIGRATION_PHASE_SWITCHOVER -> "switchover";
            case MIGRATION_PHASE_ROLLING_BACK -> "rolling back";
            default -> "done";
        };
    }

    @Override
    public void close() {
        if (drawn) {
            out.print(ERASE_LINE);
            out.flush();
        }
    }
}
