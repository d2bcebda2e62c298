package io.heliotrope.scheduler.spi;

import java.util.List;

/**
 * A plugin jar's one entry point, found with {@link java.util.ServiceLoader}: the policies it
 * offers. It needs a public no-argument constructor and should do nothing expensive in it.
 */
public interface Plugin {
    List<Policy<?>> policies();
}
