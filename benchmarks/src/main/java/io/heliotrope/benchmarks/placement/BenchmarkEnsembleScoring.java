package io.heliotrope.benchmarks.placement;

import io.heliotrope.scheduler.placement.ArrayPlan;
import io.heliotrope.scheduler.spi.Scorer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Plans scored per second on one thread through the SPI ({@link Scorer#score}), by the
 * ensemble policy's scorer: 8 front ends, {@code m} VMs, {@code N} sites (issue #23's goal:
 * at least 5 million per second at m = 5, N = 16), over {@value #PLANS} random plans.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class BenchmarkEnsembleScoring {
    private static final int PLANS = 4096;

    @Param({"16"})
    public int sites;

    @Param({"5"})
    public int vms;

    @Param({"1"})
    public long seed;

    private Scorer scorer;
    private ArrayPlan[] plans;

    @Setup
    public void prepare() {
        scorer = EnsembleInstance.of(sites, vms, seed).scorer();
        Random random = new Random(seed);
        plans = new ArrayPlan[PLANS];
        for (int i = 0; i < PLANS; i++) {
            plans[i] = new ArrayPlan(random.ints(vms, 0, sites).toArray());
        }
    }

    @Benchmark
    @OperationsPerInvocation(PLANS)
    public double score() {
        double sum = 0;
        for (ArrayPlan plan : plans) {
            sum += scorer.score(plan);
        }
        return sum;
    }
}
