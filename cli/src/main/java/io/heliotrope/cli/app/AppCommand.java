package io.heliotrope.cli.app;

import io.heliotrope.cli.client.ClientConfig;
import io.heliotrope.cli.client.SchedulerClient;
import io.heliotrope.cli.client.Target;
import io.heliotrope.cli.print.DurationConverter;
import io.heliotrope.cli.print.Json;
import io.heliotrope.cli.print.Table;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.scheduler.v1.Application;
import io.heliotrope.proto.scheduler.v1.ListApplicationsResponse;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

@Command(name = "app",
        mixinStandardHelpOptions = true,
        description = {"Applications the scheduler places: a set of VMs, a placement policy that scores where they run over the",
                "measured RTT matrix, and the workload the application reports. Every period the scheduler moves the VMs when a",
                "better placement clears the threshold (see `helio scheduler`)."},
        subcommands = {AppCommand.Create.class, AppCommand.List.class, AppCommand.Show.class, AppCommand.Report.class, AppCommand.Remove.class})
public final class AppCommand {
    @Option(names = "--controller", paramLabel = "HOST:PORT", scope = ScopeType.INHERIT,
            description = "The cluster's controller (default: $" + Target.ENV + ", else the one `helio up` wrote to ~/.config/heliotrope/client.yaml).")
    String controller;

    abstract static class Subcommand implements Callable<Integer> {
        @ParentCommand
        AppCommand parent;

        @Override
        public Integer call() throws IOException {
            try (SchedulerClient scheduler = new SchedulerClient(Target.controller(parent.controller, System.getenv(), ClientConfig.defaultPath()))) {
                return run(scheduler, System.out);
            }
        }

        abstract int run(SchedulerClient scheduler, PrintStream out) throws IOException;
    }

    @Command(name = "create", mixinStandardHelpOptions = true,
            description = {"Create an application of existing VMs (`helio vm create`). Built-in policies: single-vm (one VM, near its",
                    "front ends, paper 3.4.1) and ensemble (a replicated ensemble with a leader, e.g. ZooKeeper, paper 3.4.2);",
                    "`helio scheduler policies` lists them with the plugins'."})
    static final class Create extends Subcommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Option(names = "--policy", required = true, paramLabel = "POLICY", description = "How its placements are scored.")
        String policy;

        @Option(names = "--vms", required = true, split = ",", paramLabel = "VM", description = "Its VMs, comma-separated.")
        java.util.List<String> vms;

        @Option(names = "--leader", paramLabel = "VM", description = "Its leader until a workload report names one (ensemble).")
        String leader;

        @Option(names = "--threshold", paramLabel = "GAIN", defaultValue = "10%",
                description = {"The gain a move must bring: a percentage of |score of the current placement| (e.g. 10%%),",
                        "or an amount in the policy's own units (e.g. 5000) (default: ${DEFAULT-VALUE})."})
        String threshold;

        @Option(names = "--dwell", paramLabel = "DURATION", converter = DurationConverter.class,
                description = "A VM stays at least this long after a move (default: the scheduler's, 10m).")
        Duration dwell;

        @Option(names = "--window", paramLabel = "DURATION", converter = DurationConverter.class,
                description = "How far back the workload reports a decision averages reach (default: the policy's, 5m for the built-ins).")
        Duration window;

        @Option(names = "--alpha", paramLabel = "WEIGHT", description = "Weight of read latency (ensemble; default 1).")
        String alpha;

        @Option(names = "--beta", paramLabel = "WEIGHT", description = "Weight of write latency (ensemble; default 1).")
        String beta;

        @Option(names = "--param", paramLabel = "KEY=VALUE", description = "A setting of the policy (repeat for more).")
        Map<String, String> parameters = new LinkedHashMap<>();

        @Override
        int run(SchedulerClient scheduler, PrintStream out) {
            Application.Builder application = Application.newBuilder().setName(name).setPolicy(policy).addAllVms(vms);
            if (leader != null) {
                application.setLeader(leader);
            }
            Thresholds.set(application, threshold);
            if (dwell != null) {
                application.setDwellMillis(dwell.toMillis());
            }
            if (window != null) {
                application.setWindowMillis(window.toMillis());
            }
            application.putAllParameters(parameters);
            if (alpha != null) {
                application.putParameters("alpha", alpha);
            }
            if (beta != null) {
                application.putParameters("beta", beta);
            }
            Application created = scheduler.create(application.build());
            out.printf("created application %s: policy %s, VMs %s%s, threshold %s%n", created.getName(), created.getPolicy(),
                    String.join(", ", created.getVmsList()), created.getLeader().isEmpty() ? "" : " (leader " + created.getLeader() + ")",
                    Thresholds.print(created));
            return 0;
        }
    }

    @Command(name = "ls", mixinStandardHelpOptions = true, description = "The applications, their VMs and their last decision.")
    static final class List extends Subcommand {
        @Option(names = "--json", description = "Print JSON instead (a ListApplicationsResponse, see scheduler_service.proto).")
        boolean json;

        @Override
        int run(SchedulerClient scheduler, PrintStream out) {
            ListApplicationsResponse applications = ListApplicationsResponse.newBuilder().addAllApplications(scheduler.list()).build();
            Json.print(json, applications, out, (list, to) -> {
                Table table = new Table("<<<<<", "NAME", "POLICY", "VMS", "LAST DECISION", "REASON");
                for (Application application : list.getApplicationsList()) {
                    var last = application.getDecisionsCount() == 0 ? null : application.getDecisions(application.getDecisionsCount() - 1);
                    table.add(application.getName(), application.getPolicy(), String.join(",", application.getVmsList()),
                            last == null ? "-" : Decisions.outcome(last.getOutcome()), last == null ? "" : last.getReason());
                }
                if (table.hasRows()) {
                    table.print(to, "");
                } else {
                    to.println("no applications; create one with `helio app create NAME --policy POLICY --vms VM,...`");
                }
            });
            return 0;
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, description = "An application's settings and its decisions, newest last.")
    static final class Show extends Subcommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Option(names = "--json", description = "Print JSON instead (an Application, see scheduler_service.proto).")
        boolean json;

        @Override
        int run(SchedulerClient scheduler, PrintStream out) {
            Json.print(json, scheduler.get(name), out, Decisions::printApplication);
            return 0;
        }
    }

    @Command(name = "report", mixinStandardHelpOptions = true,
            description = {"Report the application's workload as its policy's JSON (what an application's agent sends every",
                    "few seconds over gRPC, heliotrope.scheduler.v1.SchedulerService/ReportWorkload). single-vm:",
                    "{\"frontEnds\":[{\"site\":\"virginia\",\"rate\":120}]}; ensemble:",
                    "{\"leader\":\"zk1\",\"frontEnds\":[{\"site\":\"virginia\",\"reads\":900,\"writes\":100}]}."})
    static final class Report extends Subcommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Parameters(index = "1", paramLabel = "JSON", description = "The report, or - to read it from standard input.")
        String json;

        @Override
        int run(SchedulerClient scheduler, PrintStream out) throws IOException {
            String report = json.equals("-") ? new String(System.in.readAllBytes(), StandardCharsets.UTF_8) : json;
            int inWindow = scheduler.report(name, report);
            out.printf("reported the workload of %s (%d report%s in its window)%n", name, inWindow, inWindow == 1 ? "" : "s");
            return 0;
        }
    }

    @Command(name = "rm", mixinStandardHelpOptions = true, description = "Remove an application with its reports and decisions; its VMs stay where they are.")
    static final class Remove extends Subcommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Override
        int run(SchedulerClient scheduler, PrintStream out) {
            scheduler.delete(name);
            out.printf("removed application %s (its VMs stay where they run)%n", name);
            return 0;
        }
    }

    /** The two forms of {@code --threshold}. */
    static final class Thresholds {
        private Thresholds() {}

        static void set(Application.Builder application, String threshold) {
            try {
                if (threshold.endsWith("%")) {
                    application.setThresholdFraction(Double.parseDouble(threshold.substring(0, threshold.length() - 1)) / 100);
                } else {
                    application.setThresholdScore(Double.parseDouble(threshold));
                }
            } catch (NumberFormatException e) {
                throw new HeliotropeException(ErrorCode.INVALID_ARGUMENT, "--threshold " + threshold + " is neither a percentage (10%) nor a number");
            }
        }

        static String print(Application application) {
            return application.hasThresholdScore() ? Decisions.score(application.getThresholdScore()) + " (policy units)"
                    : Decisions.percent(application.hasThresholdFraction() ? application.getThresholdFraction() : 0.1) + " of |current score|";
        }
    }
}
