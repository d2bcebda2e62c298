package io.heliotrope.scheduler.policy;

import io.heliotrope.scheduler.spi.Plugin;
import io.heliotrope.scheduler.spi.Policy;

import java.util.List;

/** The policies that come with the scheduler. */
public final class BuiltinPlugin implements Plugin {
    @Override
    public List<Policy<?>> policies() {
        return List.of(new SingleVmPolicy(), new EnsemblePolicy());
    }
}
