package io.heliotrope.scheduler.placement;

import io.heliotrope.scheduler.spi.Plan;

import java.util.Arrays;

/**
 * From the sites the search gave each role class (one multiset per class, which fixes the
 * score), the first plan in {@link PlanOrder} that gives each VM one of its class's sites and
 * that the problem's filter accepts: the fewest moves, then the smallest list of sites.
 * A depth-first walk in VM order and site order, so in the order of site lists, cut where the
 * moves made plus the fewest the unplaced VMs need reach the moves of the best accepted plan
 * so far (a later plan with as many moves comes after it), or where the filter {@linkplain
 * PlacementProblem.PlanFilter#admits admits} no completion: each assignment is tried at most
 * once, and none once an accepted plan moves as few VMs as any can.
 */
final class Resolver {
    private final PlacementProblem problem;
    private final int sites;
    private final int[] classOf;
    private final int[] classSize;
    private final ArrayPlan plan;
    private int[] best;
    private int bestMoves;
    /** Per class and site: its sites not given out yet; its unplaced VMs' current sites. */
    private final int[][] free;
    private final int[][] current;
    /** The moves the unplaced VMs need at least: their count less the most current sites the free ones can cover. */
    private int slack;

    Resolver(PlacementProblem problem, Roles roles) {
        this.problem = problem;
        this.sites = problem.sites();
        this.classOf = roles.classOf();
        this.classSize = roles.classSize();
        this.plan = ArrayPlan.unassigned(classOf.length);
        this.free = new int[roles.classes()][sites];
        this.current = new int[roles.classes()][sites];
    }

    /**
     * The best plan whose VMs take the sites {@code canonical} gives their class, moving at most
     * {@code maxMoves} VMs, or {@code null} when the filter accepts none of them.
     */
    int[] resolve(int[] canonical, int maxMoves) {
        for (int role = 0; role < free.length; role++) {
            Arrays.fill(free[role], 0);
            Arrays.fill(current[role], 0);
        }
        for (int vm = 0; vm < canonical.length; vm++) {
            free[classOf[vm]][canonical[vm]]++;
            if (isSite(problem.current()[vm])) {
                current[classOf[vm]][problem.current()[vm]]++;
            }
        }
        slack = 0;
        for (int role = 0; role < free.length; role++) {
            slack += classSize[role];
            for (int site = 0; site < sites; site++) {
                slack -= Math.min(free[role][site], current[role][site]);
            }
        }
        best = null;
        bestMoves = maxMoves + 1;
        walk(0, 0);
        return best;
    }

    private void walk(int vm, int moves) {
        if (vm == classOf.length) {
            if (problem.filter().accepts(plan)) {
                best = plan.sites().clone();
                bestMoves = moves;
            }
            return;
        }
        int role = classOf[vm];
        int now = problem.current()[vm];
        for (int site = 0; site < sites && moves + slack < bestMoves; site++) {
            if (free[role][site] == 0) {
                continue;
            }
            int before = covers(role, site, now);
            free[role][site]--;
            if (isSite(now)) {
                current[role][now]--;
            }
            int delta = 1 - (before - covers(role, site, now));
            slack -= delta;
            int made = moves + (site == now ? 0 : 1);
            plan.place(vm, site);
            if (made + slack < bestMoves && (vm == classOf.length - 1 || problem.filter().admits(plan))) {
                walk(vm + 1, made);
            }
            plan.place(vm, Plan.UNASSIGNED);
            slack += delta;
            if (isSite(now)) {
                current[role][now]++;
            }
            free[role][site]++;
        }
    }

    /** How many current sites the free sites {@code site} and {@code now} of the class cover. */
    private int covers(int role, int site, int now) {
        int covered = Math.min(free[role][site], current[role][site]);
        if (isSite(now) && now != site) {
            covered += Math.min(free[role][now], current[role][now]);
        }
        return covered;
    }

    private boolean isSite(int site) {
        return site >= 0 && site < sites;
    }
}
