package io.heliotrope.scheduler.placement;

import io.heliotrope.scheduler.spi.Scorer;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Optional;
import java.util.Random;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestSearch {
    /** Value ranges: 1 makes every plan tie, 3 makes many tie, 1000 few. */
    private static final int[] RANGES = {1, 3, 3, 1000};

    @Test
    void searchFindsTheBruteForcePlanWithRolesAndBounds() {
        Random random = new Random(23);
        for (int instance = 0; instance < 2000; instance++) {
            PlacementProblem problem = randomProblem(random, vms -> roleScorer(random, vms.sites, vms.vms));
            assertSamePlan(instance, problem, BruteForce.best(problem), Search.best(problem));
        }
    }

    @Test
    void searchFindsTheBruteForcePlanWithoutRolesOrBound() {
        Random random = new Random(24);
        for (int instance = 0; instance < 1000; instance++) {
            PlacementProblem problem = randomProblem(random, size -> tableScorer(random, size.sites, size.vms));
            assertSamePlan(instance, problem, BruteForce.best(problem), Search.best(problem));
        }
    }

    @Test
    void exhaustiveFindsTheBruteForcePlan() {
        Random random = new Random(25);
        for (int instance = 0; instance < 1000; instance++) {
            PlacementProblem problem = randomProblem(random, size -> random.nextBoolean()
                    ? roleScorer(random, size.sites, size.vms)
                    : tableScorer(random, size.sites, size.vms));
            assertSamePlan(instance, problem, BruteForce.best(problem), Exhaustive.best(problem));
        }
    }

    @Test
    void whenEveryPlanTiesTheCurrentPlanIsFoundAndNothingElseScored() {
        int sites = 32;
        int vms = 7;
        long[][] zero = new long[sites][sites];
        Scorer scorer = new TestingRoleScorer(ensembleClasses(vms, 0), new int[vms], zero, zero, 0, 1, 2);
        int[] current = {31, 5, 17, 5, 0, 9, 30};

        Placement placement = Search.best(TestingProblems.open(sites, current, scorer)).orElseThrow();

        assertThat(placement.sites()).containsExactly(current);
        assertThat(placement.moves()).isZero();
        assertThat(placement.plansScored()).isLessThanOrEqualTo(sites);
    }

    @Test
    void boundsCutMostOfTheTree() {
        Random random = new Random(26);
        int sites = 12;
        int vms = 5;
        Scorer scorer = new TestingRoleScorer(ensembleClasses(vms, 2), new int[] {1, 1, 0, 1, 1},
                values(random, 2, sites, 1000), symmetric(random, sites, 1000), 2, 3, 1);
        PlacementProblem problem = TestingProblems.open(sites, TestingProblems.randomPlan(random, sites, vms), scorer);

        Placement exhaustive = Exhaustive.best(problem).orElseThrow();
        Placement search = Search.best(problem).orElseThrow();

        assertThat(search.sites()).containsExactly(exhaustive.sites());
        assertThat(exhaustive.plansScored()).isEqualTo(12 * 1365); // leader site x C(12 + 4 - 1, 4) follower multisets
        assertThat(search.plansScored()).isLessThan(exhaustive.plansScored() / 10);
    }

    @Test
    void aFloorAboveEveryPlanLeavesNoPlan() {
        long[][] costs = {{1, 2}};
        Scorer scorer = new TestingRoleScorer(new int[] {4, 4}, new int[2], costs, new long[2][2], -1, 0, 0);
        PlacementProblem open = TestingProblems.open(2, new int[] {0, 1}, scorer);
        PlacementProblem floored = new PlacementProblem(2, open.current(), scorer, open.usable(), open.known(), open.filter(), -2 + 0.5);

        assertThat(Search.best(floored)).isEmpty();
        assertThat(Search.best(open).orElseThrow().sites()).containsExactly(0, 0);
    }

    @Test
    void roleClassesNeedOneEntryPerVm() {
        Scorer scorer = new TestingRoleScorer(new int[] {0, 1}, new int[3], new long[3][1], new long[1][1], -1, 0, 0);

        assertThatThrownBy(() -> Search.best(TestingProblems.open(1, new int[3], scorer)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("roleClasses has 2 entries for 3 VMs");
    }

    private record Size(int sites, int vms) {}

    /** 1 to 6 sites, 0 to 4 VMs. */
    private static PlacementProblem randomProblem(Random random, Function<Size, Scorer> scorer) {
        Size size = new Size(1 + random.nextInt(6), random.nextInt(5));
        return TestingProblems.random(random, size.sites, size.vms, scorer.apply(size));
    }

    static void assertSamePlan(int instance, PlacementProblem problem, Optional<Placement> expected, Optional<Placement> actual) {
        String description = "instance " + instance + ": " + problem.sites() + " sites, current " + Arrays.toString(problem.current());
        assertThat(actual.isPresent()).as(description).isEqualTo(expected.isPresent());
        expected.ifPresent(plan -> {
            assertThat(actual.get().sites()).as(description).containsExactly(plan.sites());
            assertThat(actual.get().score()).as(description).isEqualTo(plan.score());
            assertThat(actual.get().moves()).as(description).isEqualTo(plan.moves());
        });
    }

    /**
     * Random classes: sometimes none ({@code null}, every VM its own), else a random number of
     * them, with a leader when some VM is alone in its class.
     */
    private static Scorer roleScorer(Random random, int sites, int vms) {
        int range = RANGES[random.nextInt(RANGES.length)];
        int classes = 1 + random.nextInt(Math.max(1, vms));
        int[] classIndex = random.ints(vms, 0, classes).toArray();
        boolean roles = random.nextInt(5) != 0;
        if (!roles) {
            classIndex = new int[vms];
            Arrays.setAll(classIndex, vm -> vm);
            classes = Math.max(1, vms);
        }
        int leader = -1;
        for (int vm = 0; vm < vms; vm++) {
            int role = classIndex[vm];
            if (Arrays.stream(classIndex).filter(other -> other == role).count() == 1 && random.nextBoolean()) {
                leader = vm;
            }
        }
        int[] roleClasses = roles ? Arrays.stream(classIndex).map(role -> 7 * role + 3).toArray() : null;
        return new TestingRoleScorer(roleClasses, classIndex, values(random, classes, sites, range), symmetric(random, sites, range),
                leader, random.nextInt(4), random.nextInt(Math.max(1, vms - 1)));
    }

    private static Scorer tableScorer(Random random, int sites, int vms) {
        int range = RANGES[random.nextInt(RANGES.length)];
        return new TestingTableScorer(values(random, vms, sites, range), values(random, sites, sites, range));
    }

    /** The leader at {@code leader}, every other VM in one class of followers. */
    private static int[] ensembleClasses(int vms, int leader) {
        int[] classes = new int[vms];
        classes[leader] = 1;
        return classes;
    }

    private static long[][] values(Random random, int rows, int columns, int range) {
        long[][] values = new long[rows][];
        for (int row = 0; row < rows; row++) {
            values[row] = random.longs(columns, 0, range).toArray();
        }
        return values;
    }

    private static long[][] symmetric(Random random, int sites, int range) {
        long[][] values = values(random, sites, sites, range);
        for (int a = 0; a < sites; a++) {
            for (int b = 0; b < a; b++) {
                values[a][b] = values[b][a];
            }
        }
        return values;
    }
}
