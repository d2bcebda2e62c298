package io.heliotrope.storage.heat;

import io.heliotrope.storage.heat.HeatLog.Recorded;
import io.heliotrope.storage.peer.Peers.ImageRef;
import io.heliotrope.storage.propagation.PropagationManager;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import static java.util.Objects.requireNonNull;

/**
 * This site's side of the heat a new holder asks for (DESIGN.md section 4), without a
 * transport: what this site's latest session of the image read and wrote most, and from
 * then on no more pushes of the image to the asking site from a session closed here (it
 * pulls what it lacks). Counts the blocks served ({@code heliotrope.heat.served.blocks}) and
 * shows those the log keeps ({@code heliotrope.heat.tracked.blocks}).
 */
public final class HeatService {
    private final HeatLog log;
    private final PropagationManager propagation;
    private final Counter served;

    public HeatService(HeatLog log, PropagationManager propagation, MeterRegistry registry) {
        this.log = requireNonNull(log, "log is null");
        this.propagation = requireNonNull(propagation, "propagation is null");
        this.served = Counter.builder("heliotrope.heat.served.blocks")
                .description("Block numbers of images' heat sent to their new holders")
                .register(requireNonNull(registry, "registry is null"));
        Gauge.builder("heliotrope.heat.tracked.blocks", log, HeatLog::trackedBlocks)
                .description("Blocks whose heat this site counts for the images open here, and keeps for those closed lately")
                .register(registry);
    }

    /**
     * The heat of {@code image} for {@code askingSite}, which holds it from {@code holderEpoch}
     * on: at most {@code maxBlocks} blocks, hottest first; {@link Recorded#NONE} when this site
     * knows none older than that holding. Sorts up to {@link HeatConfig#trackedBlocks} blocks
     * on the caller's thread; never on the I/O path.
     */
    public Recorded heat(ImageRef image, String askingSite, long holderEpoch, long maxBlocks) {
        requireNonNull(image, "image is null");
        propagation.yield(image, requireNonNull(askingSite, "askingSite is null"));
        Recorded heat = log.heat(image, holderEpoch, (int) Math.min(Integer.MAX_VALUE, Math.max(0, maxBlocks)));
        served.increment(heat.blocks().length);
        return heat;
    }
}
