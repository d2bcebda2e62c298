package io.heliotrope.cli.app;

import io.heliotrope.cli.print.Table;
import io.heliotrope.proto.scheduler.v1.Application;
import io.heliotrope.proto.scheduler.v1.Decision;
import io.heliotrope.proto.scheduler.v1.DecisionOutcome;
import io.heliotrope.proto.scheduler.v1.Move;
import io.heliotrope.proto.scheduler.v1.PlanScore;
import io.heliotrope.proto.scheduler.v1.Term;

import java.io.PrintStream;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** How applications and decisions print for people. */
final class Decisions {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneId.systemDefault());
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());

    private Decisions() {}

    static void printApplication(Application application, PrintStream out) {
        out.printf("application %s: policy %s, VMs %s%n", application.getName(), application.getPolicy(), String.join(", ", application.getVmsList()));
        out.printf("  leader     %s%n", application.getLeader().isEmpty() ? "- (or the one the reports name)" : application.getLeader());
        out.printf("  threshold  %s%n", AppCommand.Thresholds.print(application));
        out.printf("  dwell      %s%n", application.getDwellMillis() == 0 ? "the scheduler's (10m unless set)" : application.getDwellMillis() / 1000 + "s");
        out.printf("  window     %s%n", application.getWindowMillis() == 0 ? "the policy's" : application.getWindowMillis() / 1000.0 + "s");
        if (!application.getParametersMap().isEmpty()) {
            out.printf("  parameters %s%n", application.getParametersMap().entrySet().stream().sorted(java.util.Map.Entry.comparingByKey())
                    .map(entry -> entry.getKey() + "=" + entry.getValue()).collect(Collectors.joining(" ")));
        }
        if (application.getDecisionsCount() == 0) {
            out.println("no decisions yet (the scheduler decides every period; `helio scheduler explain " + application.getName() + "` shows one now)");
            return;
        }
        out.println("decisions, newest last:");
        Table table = new Table("<<>><<", "AT", "LAST", "CURRENT", "BEST", "OUTCOME", "REASON");
        for (Decision decision : application.getDecisionsList()) {
            table.add(time(decision.getAtEpochMillis()), decision.getRepeats() <= 1 ? "" : clock(decision.getLastEpochMillis()) + " (x" + decision.getRepeats() + ")",
                    decision.hasCurrent() ? score(decision.getCurrent().getScore()) : "-", decision.hasBest() ? score(decision.getBest().getScore()) : "-",
                    outcome(decision.getOutcome()) + moves(decision.getMovesList()), decision.getReason());
        }
        table.print(out, "  ");
    }

    /** A decision in full: both plans term by term, the migrations, and why. */
    static void printDecision(String application, Decision decision, PrintStream out) {
        out.printf("%s (policy %s) at %s: %s%n", application, decision.getPolicy(), time(decision.getAtEpochMillis()), outcome(decision.getOutcome()));
        out.println("  " + decision.getReason());
        if (decision.hasCurrent()) {
            printPlan("current plan", decision.getCurrent(), out);
        }
        if (decision.hasBest()) {
            printPlan("best plan", decision.getBest(), out);
            out.printf("  a move needs a score of at least %s (current + threshold); %s in %s%n", score(decision.getRequiredScore()),
                    decision.getPlansScored() == 0 ? "the policy's exact solver found the best" : "the search scored " + decision.getPlansScored() + " plans",
                    micros(decision.getSearchMicros()));
        }
        if (decision.getMovesCount() > 0) {
            out.println("  migrations" + (decision.getOutcome() == DecisionOutcome.DECISION_OUTCOME_MOVE ? "" : " it would take") + ":");
            for (Move move : decision.getMovesList()) {
                out.printf("    %s: %s -> %s%n", move.getVm(), move.getFromSite(), move.getToSite());
            }
        }
    }

    private static void printPlan(String label, PlanScore plan, PrintStream out) {
        out.printf("  %-12s %s   score %s%s%n", label, String.join(" ", plan.getSitesList()), score(plan.getScore()),
                plan.getRejected().isEmpty() ? "" : "   rejected: " + plan.getRejected());
        if (plan.getTermsCount() > 0) {
            Table terms = new Table("<>>", "TERM", "VALUE", "CONTRIBUTION");
            for (Term term : plan.getTermsList()) {
                terms.add(term.getName(), value(term.getValue()), score(term.getContribution()));
            }
            terms.print(out, "    ");
        }
    }

    static String outcome(DecisionOutcome outcome) {
        return switch (outcome) {
            case DECISION_OUTCOME_MOVE -> "move";
            case DECISION_OUTCOME_STAY -> "stay";
            case DECISION_OUTCOME_WAIT -> "wait";
            case DECISION_OUTCOME_ERROR -> "error";
            case DECISION_OUTCOME_MIGRATION_FAILED -> "migration failed";
            case DECISION_OUTCOME_UNSPECIFIED, UNRECOGNIZED -> "?";
        };
    }

    static String moves(List<Move> moves) {
        return moves.isEmpty() ? "" : " " + moves.stream().map(move -> move.getVm() + "->" + move.getToSite()).collect(Collectors.joining(","));
    }

    static String score(double value) {
        if (Double.isInfinite(value)) {
            return value < 0 ? "-inf" : "inf";
        }
        return Math.abs(value) >= 1e6 || (value != 0 && Math.abs(value) < 1e-2) ? String.format(Locale.ROOT, "%.4g", value)
                : String.format(Locale.ROOT, "%.1f", value);
    }

    static String percent(double fraction) {
        return String.format(Locale.ROOT, "%.4g%%", fraction * 100).replaceAll("\\.?0+%", "%");
    }

    /** A term's own quantity: whole numbers (the built-ins' microseconds) as they are. */
    private static String value(double value) {
        return value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value) : score(value);
    }

    private static String micros(long micros) {
        return micros < 10_000 ? String.format(Locale.ROOT, "%.1f ms", micros / 1000.0) : micros / 1000 + " ms";
    }

    private static String time(long epochMillis) {
        return TIME.format(Instant.ofEpochMilli(epochMillis));
    }

    private static String clock(long epochMillis) {
        return CLOCK.format(Instant.ofEpochMilli(epochMillis));
    }
}
