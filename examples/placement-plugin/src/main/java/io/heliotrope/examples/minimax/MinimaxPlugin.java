package io.heliotrope.examples.minimax;

import io.heliotrope.scheduler.spi.Plugin;
import io.heliotrope.scheduler.spi.Policy;

import java.util.List;

/** The plugin's entry point, named in {@code META-INF/services/io.heliotrope.scheduler.spi.Plugin}. */
public final class MinimaxPlugin implements Plugin {
    @Override
    public List<Policy<?>> policies() {
        return List.of(new MinimaxLatency());
    }
}
