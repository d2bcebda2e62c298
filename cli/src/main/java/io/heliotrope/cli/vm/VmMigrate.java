package io.heliotrope.cli.vm;

import io.heliotrope.cli.client.VmClient;
import io.heliotrope.cli.print.CliErrors;
import io.heliotrope.cli.print.DurationConverter;
import io.heliotrope.cli.print.Json;
import io.heliotrope.cli.print.Progress;
import io.heliotrope.cli.print.Table;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.MigrationOutcome;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.scheduler.v1.EnsembleProgress;
import io.heliotrope.proto.scheduler.v1.MigrateRequest;
import io.heliotrope.proto.scheduler.v1.MigrateTogetherRequest;
import io.heliotrope.proto.scheduler.v1.MigrationProgress;
import io.heliotrope.proto.scheduler.v1.OnTimeout;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

import static io.heliotrope.cli.vm.VmCommand.millis;
import static io.heliotrope.cli.vm.VmCommand.outcome;

@Command(name = "migrate", mixinStandardHelpOptions = true,
        description = {"Move a running VM to another site, live: its RAM by QEMU, its disks' write leases by a fenced handoff at the "
                + "switchover (never two writers), the blocks the destination lacks pushed ahead. The migration runs in the driver "
                + "beside the controller: Ctrl-C only stops watching it (`helio vm migrate NAME --watch` follows it again); "
                + "--cancel cancels it, rolling it back unless the destination has resumed the guest.",
                "With several VMs and --together (the members of a replicated service): each migrates until it is ready to switch "
                        + "over, then waits for the others (--barrier); when all are ready, every lease moves, then every VM continues. "
                        + "If one fails or misses the barrier, all cancel and keep running where they are."})
final class VmMigrate extends VmCommand.Subcommand {
    @Parameters(arity = "1..*", paramLabel = "NAME", description = "The VM, or with --together the VMs.")
    List<String> names;

    @Option(names = "--to", paramLabel = "SITE", description = "The destination site.")
    String to;

    @Option(names = "--together", description = "Switch the VMs named over together (two or more).")
    boolean together;

    @Option(names = "--barrier", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "With --together: how long the first VM ready to switch over waits, paused, for the others (default: 2s).")
    Duration barrier;

    @Option(names = "--cancel", description = "Cancel the VM's migration in flight (of a VM moving together with others: all of them).")
    boolean cancel;

    @Option(names = "--watch", description = "Follow the VM's migration in flight (or show its last result).")
    boolean watch;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Give pre-copy this long (e.g. 60s), then act as --on-timeout says (default: no limit).")
    Duration timeout;

    @Option(names = "--on-timeout", paramLabel = "cancel|force", defaultValue = "cancel",
            description = "At --timeout: cancel (roll back, the VM keeps running at its site) or force (pause the guest so that "
                    + "pre-copy completes; default: ${DEFAULT-VALUE}).")
    String onTimeout;

    @Option(names = "--handoff-deadline", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long the lease's move may take at the switchover before the migration rolls back (default: 5s).")
    Duration handoffDeadline;

    @Option(names = "--json", description = "Print the result as JSON (the controller's MigrationRecord; with --together, the driver's "
            + "EnsembleProgress) instead of for people.")
    boolean json;

    @Override
    int run(VmClient vms, PrintStream out) {
        if (together) {
            return together(vms, out);
        }
        if (names.size() > 1) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "several VMs move with --together (or one command each)");
        }
        if (barrier != null) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "--barrier goes with --together");
        }
        String name = names.get(0);
        if (cancel) {
            MigrationRecord record = vms.cancel(name);
            Json.print(json, record, out, (result, to) -> VmCommand.printResult(name, result, to));
            return 0;
        }
        MigrationView view = new MigrationView(!json && Progress.stderrIsTerminal() ? System.err : null);
        MigrationRecord record;
        if (watch) {
            record = vms.watch(name, view::show);
        } else {
            MigrateRequest.Builder request = MigrateRequest.newBuilder().setVm(name).setToSite(destination()).setOnTimeout(onTimeout(onTimeout));
            if (timeout != null) {
                request.setTimeoutMillis(timeout.toMillis());
            }
            if (handoffDeadline != null) {
                request.setHandoffDeadlineMillis(handoffDeadline.toMillis());
            }
            record = vms.migrate(request.build(), view::show);
        }
        view.close();
        Json.print(json, record, out, (result, to) -> VmCommand.printResult(name, result, to));
        return record.getOutcome() == MigrationOutcome.MIGRATION_OUTCOME_COMPLETED ? 0 : CliErrors.USER_ERROR;
    }

    private int together(VmClient vms, PrintStream out) {
        if (cancel || watch) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "--cancel and --watch take one VM: `helio vm migrate NAME --cancel` cancels "
                    + "every VM moving together with it");
        }
        if (names.size() < 2) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "--together needs two or more VMs");
        }
        MigrateTogetherRequest.Builder request = MigrateTogetherRequest.newBuilder().addAllVms(names).setToSite(destination())
                .setOnTimeout(onTimeout(onTimeout));
        if (timeout != null) {
            request.setTimeoutMillis(timeout.toMillis());
        }
        if (handoffDeadline != null) {
            request.setHandoffDeadlineMillis(handoffDeadline.toMillis());
        }
        if (barrier != null) {
            request.setBarrierMillis(barrier.toMillis());
        }
        MigrationView view = new MigrationView(!json && Progress.stderrIsTerminal() ? System.err : null);
        EnsembleProgress result = vms.migrateTogether(request.build(), view::show);
        view.close();
        Json.print(json, result, out, VmMigrate::printTogether);
        boolean completed = result.getMembersList().stream()
                .allMatch(member -> member.getResult().getOutcome() == MigrationOutcome.MIGRATION_OUTCOME_COMPLETED);
        return completed ? 0 : CliErrors.USER_ERROR;
    }

    private String destination() {
        if (to == null) {
            throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "give --to SITE (or --cancel, or --watch)");
        }
        return to;
    }

    /** Each member's outcome, pause and handoff, when it stopped after the first, and the spread of the stops. */
    static void printTogether(EnsembleProgress result, PrintStream out) {
        List<MigrationRecord> records = result.getMembersList().stream().map(MigrationProgress::getResult).toList();
        long firstStop = records.stream().mapToLong(MigrationRecord::getStopEpochMicros).filter(micros -> micros > 0).min().orElse(0);
        out.printf("%d VMs to %s together (ensemble %s)%n", records.size(), result.getMembers(0).getToSite(), result.getId());
        Table table = new Table("<<<>>>><", "VM", "FROM", "OUTCOME", "PAUSE", "HANDOFF", "STOPPED", "TOTAL", "REASON");
        for (MigrationProgress member : result.getMembersList()) {
            MigrationRecord record = member.getResult();
            boolean stopped = record.getStopEpochMicros() > 0 && firstStop > 0;
            table.add(member.getVm(), member.getFromSite(), outcome(record),
                    record.getDowntimeMicros() > 0 ? millis(record.getDowntimeMicros()) : "-",
                    record.getHandoffMicros() > 0 ? millis(record.getHandoffMicros()) : "-",
                    stopped ? "+" + millis(record.getStopEpochMicros() - firstStop) : "-",
                    millis(record.getTotalMicros()), record.getReason().isEmpty() ? "-" : record.getReason());
        }
        table.print(out, "  ");
        if (result.getStopSpreadMicros() > 0 || records.stream().allMatch(record -> record.getOutcome() == MigrationOutcome.MIGRATION_OUTCOME_COMPLETED)) {
            out.printf("  spread between the first and the last stop: %s (PAUSE: source STOP to destination RESUME)%n",
                    millis(result.getStopSpreadMicros()));
        }
    }

    private static OnTimeout onTimeout(String value) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "cancel" -> OnTimeout.ON_TIMEOUT_CANCEL;
            case "force" -> OnTimeout.ON_TIMEOUT_FORCE;
            default -> throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "--on-timeout is cancel or force, not '" + value + "'");
        };
    }
}
