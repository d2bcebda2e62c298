package io.heliotrope.cli.app;

import io.heliotrope.cli.client.ClientConfig;
import io.heliotrope.cli.client.SchedulerClient;
import io.heliotrope.cli.client.Target;
import io.heliotrope.cli.print.Json;
import io.heliotrope.cli.print.Table;
import io.heliotrope.proto.scheduler.v1.ApplicationDecision;
import io.heliotrope.proto.scheduler.v1.ListPoliciesResponse;
import io.heliotrope.proto.scheduler.v1.RunResponse;
import io.heliotrope.proto.scheduler.v1.SchedulerStatus;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;

import java.io.PrintStream;
import java.time.Instant;
import java.util.concurrent.Callable;

@Command(name = "scheduler",
        mixinStandardHelpOptions = true,
        description = {"The scheduler beside the controller: every period (60 s unless `helio controller --scheduler-period`) it",
                "scores every placement of each application's VMs and migrates when a better one clears the threshold.",
                "One controller's scheduler decides at a time; the others stand by."},
        subcommands = {SchedulerCommand.Run.class, SchedulerCommand.Explain.class, SchedulerCommand.Policies.class, SchedulerCommand.Status.class})
public final class SchedulerCommand {
    @Option(names = "--controller", paramLabel = "HOST:PORT", scope = ScopeType.INHERIT,
            description = "The cluster's controller (default: $" + Target.ENV + ", else the one `helio up` wrote to ~/.config/heliotrope/client.yaml).")
    String controller;

    abstract static class Subcommand implements Callable<Integer> {
        @ParentCommand
        SchedulerCommand parent;

        @Override
        public Integer call() {
            try (SchedulerClient scheduler = new SchedulerClient(Target.controller(parent.controller, System.getenv(), ClientConfig.defaultPath()))) {
                return run(scheduler, System.out);
            }
        }

        abstract int run(SchedulerClient scheduler, PrintStream out);
    }

    @Command(name = "run", mixinStandardHelpOptions = true,
            description = {"Decide every application now instead of at the next period. With --dry-run, say what would move and",
                    "why, moving and recording nothing (works on any controller; a real run only where the scheduler is active)."})
    static final class Run extends Subcommand {
        @Option(names = "--policy", paramLabel = "POLICY", description = "Only the applications of this policy.")
        String policy = "";

        @Option(names = "--dry-run", description = "Decide, but move and record nothing.")
        boolean dryRun;

        @Option(names = "--json", description = "Print JSON instead (a RunResponse, see scheduler_service.proto).")
        boolean json;

        @Override
        int run(SchedulerClient scheduler, PrintStream out) {
            RunResponse response = RunResponse.newBuilder().addAllDecisions(scheduler.run(policy, dryRun)).build();
            Json.print(json, response, out, (decisions, to) -> {
                if (decisions.getDecisionsCount() == 0) {
                    to.println("no applications" + (policy.isEmpty() ? "" : " of policy " + policy));
                    return;
                }
                Table table = new Table("<<>><<", "APPLICATION", "OUTCOME", "CURRENT", "BEST", "MIGRATIONS", "REASON");
                for (ApplicationDecision decision : decisions.getDecisionsList()) {
                    var d = decision.getDecision();
                    table.add(decision.getApplication(), Decisions.outcome(d.getOutcome()) + (dryRun ? " (dry run)" : ""),
                            d.hasCurrent() ? Decisions.score(d.getCurrent().getScore()) : "-", d.hasBest() ? Decisions.score(d.getBest().getScore()) : "-",
                            d.getMovesCount() == 0 ? "-" : Decisions.moves(d.getMovesList()).trim(), d.getReason());
                }
                table.print(to, "");
            });
            return 0;
        }
    }

    @Command(name = "explain", mixinStandardHelpOptions = true,
            description = {"What the scheduler would decide for the application now: the current plan's score and the best one's,",
                    "term by term, the migrations it would take, and why nothing moves when nothing does."})
    static final class Explain extends Subcommand {
        @Parameters(index = "0", paramLabel = "APPLICATION")
        String name;

        @Option(names = "--json", description = "Print JSON instead (a Decision, see scheduler_service.proto).")
        boolean json;

        @Override
        int run(SchedulerClient scheduler, PrintStream out) {
            Json.print(json, scheduler.explain(name), out, (decision, to) -> Decisions.printDecision(name, decision, to));
            return 0;
        }
    }

    @Command(name = "policies", mixinStandardHelpOptions = true, description = "The placement policies this controller knows: built in, and from its plugins directory.")
    static final class Policies extends Subcommand {
        @Option(names = "--json", description = "Print JSON instead (a ListPoliciesResponse).")
        boolean json;

        @Override
        int run(SchedulerClient scheduler, PrintStream out) {
            Json.print(json, ListPoliciesResponse.newBuilder().addAllPolicies(scheduler.policies()).build(), out, (list, to) -> {
                Table table = new Table("<<<", "POLICY", "FROM", "DESCRIPTION");
                list.getPoliciesList().forEach(policy -> table.add(policy.getName(), policy.getSource(), policy.getDescription()));
                table.print(to, "");
            });
            return 0;
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true, description = "Whether this controller's scheduler decides now, and which one does.")
    static final class Status extends Subcommand {
        @Option(names = "--json", description = "Print JSON instead (a SchedulerStatus).")
        boolean json;

        @Override
        int run(SchedulerClient scheduler, PrintStream out) {
            Json.print(json, scheduler.status(), out, SchedulerCommand::print);
            return 0;
        }
    }

    private static void print(SchedulerStatus status, PrintStream out) {
        out.printf("this controller's scheduler: %s (period %d s, last round %s)%n", status.getActive() ? "active" : "standing by",
                status.getPeriodMillis() / 1000, status.getLastRoundEpochMillis() == 0 ? "none here" : Instant.ofEpochMilli(status.getLastRoundEpochMillis()));
        out.printf("deciding now: %s%n", status.getLeader().isEmpty() ? "no scheduler is elected" : status.getLeader());
    }
}
