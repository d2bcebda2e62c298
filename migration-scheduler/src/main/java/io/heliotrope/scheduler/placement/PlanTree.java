package io.heliotrope.scheduler.placement;

import io.heliotrope.scheduler.spi.Plan;
import io.heliotrope.scheduler.spi.Scorer;

import java.util.Optional;

/**
 * The tree of partial plans that {@link Search} and {@link Exhaustive} walk depth first: VMs
 * placed in {@link Roles} order, the VMs of one class in non-decreasing site order (each
 * multiset of a class's sites once), a site only where the plan stays eligible (usable sites,
 * known pairs). At a leaf the plan is scored, and if it can beat the best so far the {@link
 * Resolver} finds the best concrete plan with its classes' sites.
 *
 * <p>With bounds, a node is cut when the scorer's {@link Scorer#bound} is below the floor or
 * the best score so far, or equals the best score while the node's {@link MoveBound} exceeds
 * the best plan's moves; a node's children are visited best bound first, then fewest moves
 * (the current plan's sites first), then site order. Without bounds every leaf is scored.
 */
final class PlanTree {
    private final PlacementProblem problem;
    private final Scorer scorer;
    private final boolean bounded;
    private final int sites;
    private final Roles roles;
    private final ArrayPlan plan;
    private final boolean[][] compatible;
    /** Per site: the VMs placed there; the distinct sites placed, in the order they were first used. */
    private final int[] load;
    private final int[] distinct;
    private int distinctCount;
    private final MoveBound moveBound;
    private final Resolver resolver;
    /** Per depth, the children kept: their sites, bounds and move bounds, visited in {@code rank} order. */
    private final int[][] childSite;
    private final double[][] childBound;
    private final int[][] childMoves;
    private final int[][] rank;

    private int[] best;
    private double bestScore = Double.NEGATIVE_INFINITY;
    private int bestMoves = Integer.MAX_VALUE;
    private long scored;

    PlanTree(PlacementProblem problem, boolean bounded) {
        this.problem = problem;
        this.scorer = problem.scorer();
        this.bounded = bounded;
        this.sites = problem.sites();
        int vms = problem.current().length;
        this.roles = Roles.of(scorer.roleClasses(), vms);
        this.plan = ArrayPlan.unassigned(vms);
        this.compatible = new boolean[sites][sites];
        for (int a = 0; a < sites; a++) {
            for (int b = 0; b < sites; b++) {
                compatible[a][b] = a == b || problem.known()[a][b] && problem.known()[b][a];
            }
        }
        this.load = new int[sites];
        this.distinct = new int[vms];
        this.moveBound = new MoveBound(sites, problem.current(), roles);
        this.resolver = new Resolver(problem, roles);
        this.childSite = new int[vms][sites];
        this.childBound = new double[vms][sites];
        this.childMoves = new int[vms][sites];
        this.rank = new int[vms][sites];
    }

    Optional<Placement> best() {
        if (plan.size() == 0) {
            leaf();
        } else {
            expand(0, Double.POSITIVE_INFINITY);
        }
        return best == null ? Optional.empty() : Optional.of(new Placement(best, bestScore, bestMoves, scored));
    }

    private void expand(int depth, double bound) {
        int from = roles.continuesClass(depth) ? plan.site(roles.order()[depth - 1]) : 0;
        boolean last = depth == plan.size() - 1;
        int children = 0;
        for (int site = from; site < sites; site++) {
            if (!eligible(site)) {
                continue;
            }
            place(depth, site);
            int moves = moveBound.value();
            if (!cut(bound, moves)) {
                if (last) {
                    leaf();
                } else {
                    double childBound = bounded ? scorer.bound(plan) : Double.POSITIVE_INFINITY;
                    if (!cut(childBound, moves)) {
                        childSite[depth][children] = site;
                        this.childBound[depth][children] = childBound;
                        childMoves[depth][children] = moves;
                        insert(depth, children++);
                    }
                }
            }
            unplace(depth, site);
        }
        for (int i = 0; i < children; i++) {
            int child = rank[depth][i];
            if (cut(childBound[depth][child], childMoves[depth][child])) {
                continue;
            }
            place(depth, childSite[depth][child]);
            expand(depth + 1, childBound[depth][child]);
            unplace(depth, childSite[depth][child]);
        }
    }

    /** Ranks child {@code child} among the {@code child} ranked before it (insertion sort, stable, so site order last). */
    private void insert(int depth, int child) {
        int[] order = rank[depth];
        int i = child;
        while (bounded && i > 0 && before(depth, child, order[i - 1])) {
            order[i] = order[i - 1];
            i--;
        }
        order[i] = child;
    }

    private boolean before(int depth, int a, int b) {
        double boundA = childBound[depth][a];
        double boundB = childBound[depth][b];
        return boundA > boundB || boundA == boundB && childMoves[depth][a] < childMoves[depth][b];
    }

    /** Whether no plan under a node with this bound and move bound can come before the best so far. */
    private boolean cut(double bound, int moves) {
        return bounded && (bound < problem.floor() || bound < bestScore || bound == bestScore && moves > bestMoves);
    }

    private void leaf() {
        double score = scorer.score(plan);
        scored++;
        if (score < problem.floor() || score < bestScore || score == bestScore && moveBound.value() > bestMoves) {
            return;
        }
        int[] concrete = resolver.resolve(plan.sites(), score == bestScore ? bestMoves : plan.size());
        if (concrete == null) {
            return;
        }
        int moves = PlanOrder.moves(concrete, problem.current());
        if (best == null || PlanOrder.compare(score, moves, concrete, bestScore, bestMoves, best) < 0) {
            best = concrete;
            bestScore = score;
            bestMoves = moves;
        }
    }

    private boolean eligible(int site) {
        if (!problem.usable()[site]) {
            return false;
        }
        for (int i = 0; i < distinctCount; i++) {
            if (!compatible[site][distinct[i]]) {
                return false;
            }
        }
        return true;
    }

    private void place(int depth, int site) {
        int vm = roles.order()[depth];
        plan.place(vm, site);
        if (load[site]++ == 0) {
            distinct[distinctCount++] = site;
        }
        moveBound.place(roles.classOf()[vm], site);
    }

    private void unplace(int depth, int site) {
        int vm = roles.order()[depth];
        if (--load[site] == 0) {
            distinctCount--;
        }
        moveBound.unplace(roles.classOf()[vm], site, roles.continuesClass(depth) ? plan.site(roles.order()[depth - 1]) : 0);
        plan.place(vm, Plan.UNASSIGNED);
    }
}
