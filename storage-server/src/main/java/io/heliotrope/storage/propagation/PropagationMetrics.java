package io.heliotrope.storage.propagation;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import static java.util.Objects.requireNonNull;

/**
 * Proactive pushes of a site: blocks queued over all images it pushes from, and per destination
 * site the blocks and bytes pushed, the copies it refused (it had them, or newer), the
 * pushes that failed and those that had no answer in time. Tagged by destination only,
 * never by image, to bound cardinality.
 */
public final class PropagationMetrics {
    private final MeterRegistry registry;
    private final LongAdder queued = new LongAdder();
    private final Map<String, Destination> destinations = new ConcurrentHashMap<>();

    public PropagationMetrics(MeterRegistry registry) {
        this.registry = requireNonNull(registry, "registry is null");
        Gauge.builder("heliotrope.propagation.queue", queued, LongAdder::sum)
                .description("Blocks written since they were last pushed, over the images open for write here")
                .register(registry);
    }

    void queued(long delta) {
        queued.add(delta);
    }

    /** A push to {@code site} goes out: the bytes the cap and the budget count. */
    void sent(String site, long bytes) {
        destination(site).bytes.increment(bytes);
    }

    /** {@code site} answered a push of {@code blocks} copies, {@code refused} of which it did not store. */
    void pushed(String site, long blocks, long refused) {
        Destination destination = destination(site);
        destination.blocks.increment(blocks);
        destination.refused.increment(refused);
    }

    void failed(String site) {
        destination(site).failures.increment();
    }

    /** A push to {@code site} had no answer in time: the site waits, the push goes on. */
    void late(String site) {
        destination(site).late.increment();
    }

    private Destination destination(String site) {
        return destinations.computeIfAbsent(site, Destination::new);
    }

    private final class Destination {
        private final Counter blocks;
        private final Counter bytes;
        private final Counter refused;
        private final Counter failures;
        private final Counter late;

        Destination(String site) {
            blocks = Counter.builder("heliotrope.propagation.pushed.blocks").tag("destination", site).register(registry);
            bytes = Counter.builder("heliotrope.propagation.pushed.bytes").baseUnit("bytes").tag("destination", site)
                    .description("Bytes of the copies pushed (block data and each copy's block number and version), counted as each push"
                            + " goes out: what the image's cap and budget govern")
                    .register(registry);
            refused = Counter.builder("heliotrope.propagation.refused.blocks").tag("destination", site)
                    .description("Copies pushed that the destination did not store: it had them, or newer")
                    .register(registry);
            failures = Counter.builder("heliotrope.propagation.failed.pushes").tag("destination", site).register(registry);
            late = Counter.builder("heliotrope.propagation.late.pushes").tag("destination", site)
                    .description("Pushes the destination did not answer in time: pushes there wait, and these go on until their deadline")
                    .register(registry);
        }
    }
}
