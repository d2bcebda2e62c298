package io.heliotrope.nbd.server;

import io.heliotrope.nbd.protocol.NbdCommand;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * NBD request counts, bytes and latency per command; meters are made once, so recording
 * a request costs no registry lookup.
 */
public final class NbdMetrics {
    public enum Outcome {
        OK,
        ERROR,
        INVALID
    }

    private final Map<NbdCommand, Map<Outcome, Counter>> requests = new EnumMap<>(NbdCommand.class);
    private final Map<NbdCommand, Counter> bytes = new EnumMap<>(NbdCommand.class);
    private final Map<NbdCommand, Timer> latency = new EnumMap<>(NbdCommand.class);
    private final Counter unknownCommands;
    private final AtomicInteger connections = new AtomicInteger();

    public NbdMetrics(MeterRegistry registry) {
        for (NbdCommand command : NbdCommand.values()) {
            Map<Outcome, Counter> byOutcome = new EnumMap<>(Outcome.class);
            for (Outcome outcome : Outcome.values()) {
                byOutcome.put(outcome, Counter.builder("heliotrope.nbd.requests")
                        .tag("op", command.tag())
                        .tag("outcome", outcome.name().toLowerCase(java.util.Locale.ROOT))
                        .register(registry));
            }
            requests.put(command, byOutcome);
            bytes.put(command, Counter.builder("heliotrope.nbd.bytes").baseUnit("bytes").tag("op", command.tag()).register(registry));
            latency.put(command, Timer.builder("heliotrope.nbd.latency").tag("op", command.tag()).register(registry));
        }
        unknownCommands = Counter.builder("heliotrope.nbd.requests").tag("op", "unknown").tag("outcome", "invalid").register(registry);
        Gauge.builder("heliotrope.nbd.connections", connections, AtomicInteger::get)
                .description("NBD connections in transmission, each holding an image open")
                .register(registry);
    }

    public void record(NbdCommand command, Outcome outcome, long length, long startNanos) {
        requests.get(command).get(outcome).increment();
        if (outcome == Outcome.OK) {
            bytes.get(command).increment(length);
        }
        latency.get(command).record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
    }

    public void recordUnknown() {
        unknownCommands.increment();
    }

    public void connectionOpened() {
        connections.incrementAndGet();
    }

    public void connectionClosed() {
        connections.decrementAndGet();
    }
}
