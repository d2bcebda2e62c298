package io.heliotrope.scheduler.decision;

import io.heliotrope.proto.controller.v1.RttMatrix;
import io.heliotrope.proto.controller.v1.Site;
import io.heliotrope.proto.controller.v1.Vm;

import java.util.List;

/** What the scheduler reads of the controller for a round. Calls block; failures are {@code HeliotropeException}s. */
public interface ClusterState {
    List<Site> sites();

    /** Each site's newest row, as the controller keeps it. */
    RttMatrix rtt();

    List<Vm> vms();
}
