package io.heliotrope.bench.sun.plugin;

import io.heliotrope.scheduler.spi.Plugin;
import io.heliotrope.scheduler.spi.Policy;

import java.time.Duration;
import java.util.List;

/**
 * {@link ScaledEnsemblePolicy} for the scheduler's plugin directory. A plugin is made with no
 * arguments, so the window comes from the environment of the process that loads it:
 * {@code HELIO_SUN_WINDOW_MS} (follow.sh sets it for its {@code helio up}), 10 s without it.
 */
public final class ScaledEnsemblePlugin implements Plugin {
    static final String WINDOW_VARIABLE = "HELIO_SUN_WINDOW_MS";

    @Override
    public List<Policy<?>> policies() {
        String millis = System.getenv(WINDOW_VARIABLE);
        Duration window = Duration.ofMillis(millis == null || millis.isBlank() ? 10_000 : Long.parseLong(millis.strip()));
        return List.of(new ScaledEnsemblePolicy(window));
    }
}
