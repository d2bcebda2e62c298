package io.heliotrope.scheduler.spi;

import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * An application as a policy sees it.
 *
 * @param vms        its VMs, sorted by name: a plan's VM {@code i} is {@code vms.get(i)}
 * @param leader     the index in {@code vms} of its leader (the VM named by the latest
 *                   report, else the application's {@code --leader}), or {@code -1}
 * @param parameters the policy's settings for this application ({@code helio app create --param key=value},
 *                   {@code --alpha} and {@code --beta} land here as {@code alpha} and {@code beta})
 */
public record Application(String name, List<String> vms, int leader, Map<String, String> parameters) {
    public Application {
        requireNonNull(name, "name is null");
        vms = List.copyOf(vms);
        parameters = Map.copyOf(parameters);
        if (leader < -1 || leader >= vms.size()) {
            throw new IllegalArgumentException("leader " + leader + " is not a VM of " + vms);
        }
    }
}
