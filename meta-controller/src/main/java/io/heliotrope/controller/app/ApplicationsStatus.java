package io.heliotrope.controller.app;

import java.util.List;

/**
 * The scheduler's applications as the status port shows them ({@code /api/applications}, in
 * JSON): each with its policy, its VMs and the site each is at, its leader VM and its newest
 * decision; and the newest decisions across every application, newest first. Times are
 * milliseconds since the epoch by the controller's clock; outcomes are lowercase
 * ({@code move}, {@code stay}, {@code wait}, {@code error}, {@code migration_failed}).
 */
public record ApplicationsStatus(long generatedEpochMillis, List<ApplicationState> applications, List<DecisionState> decisions) {
    public ApplicationsStatus {
        applications = List.copyOf(applications);
        decisions = List.copyOf(decisions);
    }

    /** {@code last} is null before the first decision; {@code leader} is "" for none. */
    public record ApplicationState(String name, String policy, List<VmSite> vms, String leader, int decisions, DecisionState last) {
        public ApplicationState {
            vms = List.copyOf(vms);
        }
    }

    /** A VM of an application and the site it is at ("" when no VM of that name is defined). */
    public record VmSite(String vm, String site) {}

    /**
     * A decision, its repeats folded in: first taken at {@code atEpochMillis}, last at
     * {@code lastEpochMillis}; scores are the policy's (higher is better; a plan the filter
     * rejects scores minus infinity).
     */
    public record DecisionState(String application, String outcome, String reason, long atEpochMillis, long lastEpochMillis, int repeats,
            double currentScore, double bestScore, List<Move> moves, boolean dryRun) {
        public DecisionState {
            moves = List.copyOf(moves);
        }
    }

    public record Move(String vm, String fromSite, String toSite) {}
}
