package io.heliotrope.controller.zookeeper;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

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

    private final Map<Op, Timer> latency = new EnumMap<>(Op.class);
    private final Map<Op, Counter> errors = new EnumMap<>(Op.class);

    public ZooKeeperMetrics(MeterRegistry registry) {
        for (Op op : Op.values()) {
            String tag = op.name().toLowerCase(Locale.ROOT);
            latency.put(op, Timer.builder("heliotrope.controller.zookeeper.latency").tag("op", tag)
                    .description("ZooKeeper operations of this controller, failed ones included")
                    .publishPercentileHistogram()
                    .minimumExpectedValue(Duration.ofMillis(1))
                    .maximumExpectedValue(Duration.ofSeconds(15))
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
