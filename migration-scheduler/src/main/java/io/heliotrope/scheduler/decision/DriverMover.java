package io.heliotrope.scheduler.decision;

import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.scheduler.v1.MigrateRequest;
import io.heliotrope.proto.scheduler.v1.MigrateTogetherRequest;
import io.heliotrope.proto.scheduler.v1.Move;
import io.heliotrope.scheduler.migration.Migration;
import io.heliotrope.scheduler.migration.MigrationDriver;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

import static java.util.Objects.requireNonNull;

/**
 * Moves through the migration driver beside the controller: the VMs of a decision going to
 * one site migrate together (parked at pre-switchover until all are, #22), a VM going alone
 * migrates alone; the moves to different sites run at once, as the paper's did.
 */
public final class DriverMover implements Mover {
    private final MigrationDriver driver;

    public DriverMover(MigrationDriver driver) {
        this.driver = requireNonNull(driver, "driver is null");
    }

    @Override
    public Map<String, CompletableFuture<MigrationRecord>> start(List<Move> moves, String requestedBy) {
        Map<String, List<String>> byDestination = new TreeMap<>();
        for (Move move : moves) {
            byDestination.computeIfAbsent(move.getToSite(), site -> new ArrayList<>()).add(move.getVm());
        }
        Map<String, CompletableFuture<MigrationRecord>> results = new TreeMap<>();
        byDestination.forEach((site, vms) -> {
            try {
                List<Migration> started = vms.size() == 1
                        ? List.of(driver.start(MigrateRequest.newBuilder().setVm(vms.get(0)).setToSite(site).setRequestedBy(requestedBy).build()))
                        : driver.startTogether(MigrateTogetherRequest.newBuilder().addAllVms(vms).setToSite(site).setRequestedBy(requestedBy).build());
                started.forEach(migration -> results.put(migration.vmName(), migration.result()));
            } catch (RuntimeException e) {
                vms.forEach(vm -> results.put(vm, CompletableFuture.failedFuture(e)));
            }
        });
        return results;
    }

    @Override
    public Set<String> migrating() {
        return driver.migrating();
    }
}
