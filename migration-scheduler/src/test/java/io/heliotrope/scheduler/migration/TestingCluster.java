package io.heliotrope.scheduler.migration;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.Lease;
import io.heliotrope.proto.controller.v1.MigrationInFlight;
import io.heliotrope.proto.controller.v1.MigrationRecord;
import io.heliotrope.proto.controller.v1.Vm;
import io.heliotrope.proto.controller.v1.VmSpec;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A controller in memory: VMs, one lease per image that moves as the handoff calls say, a
 * log of the calls, and one of the reports and records of migrations.
 */
final class TestingCluster implements ClusterCalls {
    final List<String> calls = new CopyOnWriteArrayList<>();
    final List<String> reports = new CopyOnWriteArrayList<>();
    final Map<String, Vm> vms = new ConcurrentHashMap<>();
    final Map<String, Lease> leases = new ConcurrentHashMap<>();
    final List<MigrationRecord> records = new CopyOnWriteArrayList<>();

    TestingCluster vm(String name, String site, String... disks) {
        vms.put(name, Vm.newBuilder().setSpec(VmSpec.newBuilder().setName(name).addAllDisks(List.of(disks))).setSite(site).setVersion(1).build());
        for (String disk : disks) {
            leases.put(disk, Lease.newBuilder().setImage(disk).setHolder(site).setEpoch(5).build());
        }
        return this;
    }

    @Override
    public Vm vm(String name) {
        Vm vm = vms.get(name);
        if (vm == null) {
            throw new HeliotropeException(ErrorCode.VM_NOT_FOUND, "VM '" + name + "' not found");
        }
        return vm;
    }

    @Override
    public Lease lease(String image) {
        return leases.get(image);
    }

    @Override
    public Lease prepare(String image, String from, String to) {
        calls.add("prepare " + image + " " + from + "->" + to);
        return leases.compute(image, (name, lease) -> lease.toBuilder().setMovingTo(to).build());
    }

    @Override
    public Lease cancelHandoff(String image, String from, String to) {
        calls.add("cancelHandoff " + image);
        return leases.compute(image, (name, lease) -> lease.toBuilder().setHolder(from).setMovingTo("").setEpoch(lease.getEpoch() + 1).build());
    }

    @Override
    public Lease completeHandoff(String image, String from, String to) {
        calls.add("completeHandoff " + image);
        return leases.compute(image, (name, lease) -> lease.toBuilder().setHolder(to).setMovingTo("").setEpoch(6).build());
    }

    @Override
    public Vm moveVm(String name, String site, long version) {
        calls.add("moveVm " + name + " " + site);
        return vms.compute(name, (key, vm) -> vm.toBuilder().setSite(site).setVersion(version + 1).build());
    }

    @Override
    public void recordMigration(String name, MigrationRecord record) {
        reports.add("record " + name);
        records.add(record);
    }

    @Override
    public void reportMigration(String name, MigrationInFlight inFlight) {
        reports.add("report " + name + " " + inFlight.getPhase());
    }
}
