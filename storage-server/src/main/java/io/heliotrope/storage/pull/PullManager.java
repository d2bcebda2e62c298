package io.heliotrope.storage.pull;

import io.heliotrope.error.HeliotropeException;
import io.heliotrope.storage.Replication;
import io.heliotrope.storage.heat.HeatSource;
import io.heliotrope.storage.view.Background;
import io.heliotrope.storage.view.ImageSession;
import io.heliotrope.storage.view.PullTarget;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;

import static java.util.Objects.requireNonNull;

/**
 * The background pulls of the images open for write at this site (DESIGN.md section 4): one
 * {@link ImagePull} per data view, from its open until its {@link Background#stop()} or its
 * session loses the lease. Their steps run on {@code scheduler}, which should have one thread
 * ({@code site-pull}); nothing blocks there.
 */
public final class PullManager implements Background.Factory {
    private static final Logger log = LoggerFactory.getLogger(PullManager.class);

    private final PullContext context;
    private final Set<ImagePull> pulls = ConcurrentHashMap.newKeySet();

    /**
     * @param heat where a pull learns what the previous holders read and wrote most
     * @param scheduler where the pulls' steps and timers run
     * @param order the order pulls take blocks in ({@link PullOrder#BLOCK} for the benchmark's baseline)
     */
    public PullManager(HeatSource heat, ScheduledExecutorService scheduler, Clock clock, PullConfig config, PullOrder order, MeterRegistry registry) {
        this.context = new PullContext(requireNonNull(heat, "heat is null"), requireNonNull(scheduler, "scheduler is null"),
                requireNonNull(clock, "clock is null"), requireNonNull(config, "config is null"), requireNonNull(order, "order is null"),
                new PullMetrics(registry, () -> pulls));
    }

    @Override
    public Background open(ImageSession session, PullTarget target) {
        ImagePull pull = new ImagePull(session, target, context, pulls::remove);
        pulls.add(pull);
        pull.start();
        return pull;
    }

    /** The pulls of the images open here, by image name. */
    public List<PullStatus> statuses() {
        return pulls.stream().map(ImagePull::status).sorted(Comparator.comparing(PullStatus::image)).toList();
    }

    /** Applies the catalog's settings now (on every catalog refresh): {@code image set --pull off} stops a pull, {@code on} starts it. */
    public void refresh(Function<String, Replication> catalog) {
        for (ImagePull pull : pulls) {
            try {
                pull.refresh(catalog.apply(pull.image()));
            } catch (HeliotropeException e) {
                log.debug("{}: pull settings not refreshed: {}", pull.image(), e.getMessage());
            }
        }
    }
}
