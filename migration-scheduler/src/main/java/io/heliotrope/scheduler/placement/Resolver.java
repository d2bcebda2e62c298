package io.heliotrope.scheduler.placement;

import java.util.Arrays;

/**
 * From the sites the search gave each role class (one multiset per class, which fixes the
 * score), the first plan in {@link PlanOrder} that gives each VM one of its class's sites and
 * that the problem's filter accepts: the fewest moves, then the smallest list of sites.
 * Iterative deepening on the moves: for each budget from the least any assignment needs, a
 * depth-first walk in VM order and site order, cut where the moves made plus the fewest the
 * remaining VMs need exceed the budget; the first accepted plan is the answer.
 */
final class Resolver {
    private final PlacementProblem problem;
    private final int sites;
    private final int[] classOf;
    private final int[] classSize;
    private final ArrayPlan plan;
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
        this.plan = new ArrayPlan(new int[classOf.length]);
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
        for (int budget = slack; budget <= maxMoves; budget++) {
            if (walk(0, 0, budget)) {
                return plan.sites().clone();
            }
        }
        return null;
    }

    private boolean walk(int vm, int moves, int budget) {
        if (vm == classOf.length) {
            return problem.filter().accepts(plan);
        }
        int role = classOf[vm];
        int now = problem.current()[vm];
        for (int site = 0; site < sites; site++) {
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
            boolean found = made + slack <= budget && walk(vm + 1, made, budget);
            slack += delta;
            if (isSite(now)) {
                current[role][now]++;
            }
            free[role][site]++;
            if (found) {
                return true;
            }
        }
        return false;
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
