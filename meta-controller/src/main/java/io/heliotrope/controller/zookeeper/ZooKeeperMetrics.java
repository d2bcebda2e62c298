package io.heliotrope.controller.zookeeper;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

/**
 * Latency of the controller's ZooKeeper operations by kind
 * ({@code heliotrope.controller.zookeeper.latency{op}}, a histogram) and the operations that
 * failed ({@code heliotrope.controller.zookeeper.errors{op}}): an answer such as "no such
 * znode" or "version changed" is an outcome, not an error. A batch counts as one operation.
 */
public final class ZooKeeperMetrics {
    public enum Op {
        READ,
        LIST,
        CREATE,
        WRITE,
        DELETE,
        COMMIT,
        READ_MANY,
        CREATE_MANY,
        DELETE_MANY
    }

    /** Histogram buckets, in microseconds: a local ensemble answers in well under a millisecond, seconds mean a stalled one. */
    private static final Duration[] BUCKETS = LongStream.of(250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000,
            500_000, 1_000_000, 2_500_000, 5_000_000).mapToObj(micros -> Duration.of(micros, ChronoUnit.MICROS)).toArray(Duration[]::new);

    private final Map<Op, Timer> latency = new EnumMap<>(Op.class);
    private final Map<Op, Counter> errors = new EnumMap<>(Op.class);

    public ZooKeeperMetrics(MeterRegistry registry) {
        for (Op op : Op.values()) {
            String tag = op.name().toLowerCase(Locale.ROOT);
            latency.put(op, Timer.builder("heliotrope.controller.zookeeper.latency").tag("op", tag)
                    .description("ZooKeeper operations of this controller, failed ones included")
                    .serviceLevelObjectives(BUCKETS)
                    .register(registry));
            errors.put(op, Counter.builder("heliotrope.controller.zookeeper.errors").tag("op", tag)
                    .description("ZooKeeper operations that failed: unreachable ensemble, timeout, refused request")
                    .register(registry));
        }
    }

    void record(Op op, long startNanos) {
        latency.get(op).record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
    }

    void failed(Op op) {
        errors.get(op).increment();
    }
}
