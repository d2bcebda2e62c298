package io.heliotrope.storage.pull;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

import static java.util.Objects.requireNonNull;

/**
 * The background pulls of a site (DESIGN.md section 4), tagged by holder only: blocks and
 * bytes pulled ({@code heliotrope.pull.blocks{peer}}, {@code heliotrope.pull.bytes{peer}}), and
 * over the images open here, the blocks still elsewhere ({@code heliotrope.pull.elsewhere.blocks}),
 * those lacked when their pulls started ({@code heliotrope.pull.lacked.blocks}), the pulls
 * running ({@code heliotrope.pull.running}) and each holder's window ({@code heliotrope.pull.window.bytes{peer}}).
 * A holder's meters are made on its first pull.
 */
final class PullMetrics {
    private final MeterRegistry registry;
    private final Supplier<Collection<ImagePull>> pulls;
    private final Map<String, Holder> holders = new ConcurrentHashMap<>();

    PullMetrics(MeterRegistry registry, Supplier<Collection<ImagePull>> pulls) {
        this.registry = requireNonNull(registry, "registry is null");
        this.pulls = requireNonNull(pulls, "pulls is null");
        Gauge.builder("heliotrope.pull.elsewhere.blocks", () -> sum(ImagePull::elsewhere))
                .description("Blocks of the images open here whose current version is only at other sites").register(registry);
        Gauge.builder("heliotrope.pull.lacked.blocks", () -> sum(ImagePull::lacked))
                .description("Blocks the images open here lacked when their background pulls started").register(registry);
        Gauge.builder("heliotrope.pull.running", () -> pulls.get().stream().filter(pull -> pull.state() == PullStatus.State.RUNNING).count())
                .register(registry);
    }

    /** {@code blocks} blocks with {@code bytes} of data arrived from {@code peer}. */
    void pulled(String peer, int blocks, long bytes) {
        Holder holder = holders.computeIfAbsent(peer, this::holder);
        holder.blocks.increment(blocks);
        holder.bytes.increment(bytes);
    }

    private Holder holder(String peer) {
        Gauge.builder("heliotrope.pull.window.bytes", () -> sum(pull -> pull.window(peer))).baseUnit("bytes").tag("peer", peer)
                .description("Bytes the background pulls may have in flight from a peer").register(registry);
        return new Holder(Counter.builder("heliotrope.pull.blocks").tag("peer", peer).register(registry),
                Counter.builder("heliotrope.pull.bytes").baseUnit("bytes").tag("peer", peer)
                        .description("Block data the background pulls brought from a peer").register(registry));
    }

    private long sum(ToLongFunction<ImagePull> value) {
        return pulls.get().stream().mapToLong(value).sum();
    }

    private record Holder(Counter blocks, Counter bytes) {}
}
