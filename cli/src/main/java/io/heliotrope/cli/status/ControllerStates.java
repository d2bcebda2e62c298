package io.heliotrope.cli.status;

import io.heliotrope.cli.client.CatalogClient;
import io.heliotrope.cli.client.Target;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.ClusterStatus;
import io.heliotrope.storage.server.SiteConfig;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Each controller of a target that names several, asked on its own: down (it does not
 * answer), up but without ZooKeeper, or up. One of them answering does not say the others do.
 */
record ControllerStates(List<State> states) {
    private static final Duration DEADLINE = Duration.ofSeconds(3);

    record State(String address, String state) {}

    /** Asks each controller {@code target} names; none when it names one only (the status itself says how that one is). */
    static ControllerStates of(Target target) {
        List<String> addresses = SiteConfig.addresses(target.address());
        List<State> states = new ArrayList<>();
        if (addresses.size() > 1) {
            for (String address : addresses) {
                states.add(new State(address, ask(new Target(Target.Kind.CONTROLLER, address, ""))));
            }
        }
        return new ControllerStates(states);
    }

    private static String ask(Target controller) {
        try (CatalogClient client = new CatalogClient(controller)) {
            ClusterStatus status = client.clusterStatus(DEADLINE);
            return !status.hasZookeeper() || status.getZookeeper().getConnected() ? "up" : "up, but ZooKeeper is out of its reach";
        } catch (HeliotropeException e) {
            return "down: " + e.getMessage();
        }
    }
}
