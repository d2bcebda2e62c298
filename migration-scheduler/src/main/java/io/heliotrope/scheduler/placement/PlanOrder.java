package io.heliotrope.scheduler.placement;

import java.util.Arrays;

/**
 * The one order of candidate plans, shared by the search, the policies' solvers and the
 * tests' brute force (DESIGN.md section 7): the higher score first; on equal scores, the
 * fewer VMs moved from the current plan; then the smaller list of site numbers in VM order
 * (sites are numbered in name order, VMs sorted by name). Scores compare with {@code ==}:
 * a scorer returns the same bits for the same plan.
 */
public final class PlanOrder {
    private PlanOrder() {}

    /** The number of VMs whose site in {@code plan} differs from {@code current}. */
    public static int moves(int[] plan, int[] current) {
        int moves = 0;
        for (int vm = 0; vm < plan.length; vm++) {
            if (plan[vm] != current[vm]) {
                moves++;
            }
        }
        return moves;
    }

    /** Negative when plan {@code a} comes before {@code b}, positive when after, 0 when they are the same plan. */
    public static int compare(double scoreA, int movesA, int[] a, double scoreB, int movesB, int[] b) {
        if (scoreA != scoreB) {
            return scoreA > scoreB ? -1 : 1;
        }
        if (movesA != movesB) {
            return Integer.compare(movesA, movesB);
        }
        return Arrays.compare(a, b);
    }
}
