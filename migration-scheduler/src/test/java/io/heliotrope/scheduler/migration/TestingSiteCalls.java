package io.heliotrope.scheduler.migration;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.proto.controller.v1.VmSpec;
import io.heliotrope.proto.storage.v1.HandoffStatus;
import io.heliotrope.proto.storage.v1.HandoverState;
import io.heliotrope.proto.storage.v1.MigrationState;
import io.heliotrope.proto.storage.v1.StartMigrationRequest;
import io.heliotrope.proto.storage.v1.VmRuntime;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A site whose runner answers query-migrate with the states it was given, one per call,
 * the last one for good (per VM when given for a VM, else from one queue for all); logs
 * every call. A source parked at pre-switchover answers HandOver with DONE, and
 * ContinueMigration makes it completed.
 */
final class TestingSiteCalls implements SiteCalls {
    final String site;
    final List<String> calls = new CopyOnWriteArrayList<>();
    private final Deque<MigrationState> states = new ArrayDeque<>();
    private final Map<String, Deque<MigrationState>> vmStates = new ConcurrentHashMap<>();
    volatile String vmState = "running";
    volatile boolean resumed;
    volatile RuntimeException startFailure;
    /** Until when query-migrate fails as a restarting site's would. */
    volatile long silentUntilNanos;
    private long trafficReads;

    TestingSiteCalls(String site) {
        this.site = site;
    }

    synchronized TestingSiteCalls then(MigrationState state) {
        states.add(state);
        return this;
    }

    synchronized TestingSiteCalls then(String vm, MigrationState state) {
        vmStates.computeIfAbsent(vm, name -> new ArrayDeque<>()).add(state);
        return this;
    }

    static MigrationState status(String status) {
        return MigrationState.newBuilder().setStatus(status).setVmState("running").build();
    }

    @Override
    public VmRuntime runtime(String vm) {
        return VmRuntime.newBuilder().setName(vm).setSite(site).setState(vmState).build();
    }

    @Override
    public VmRuntime startVm(VmSpec spec, boolean incoming) {
        calls.add("startVm " + spec.getName() + (incoming ? " incoming" : ""));
        if (startFailure != null) {
            throw startFailure;
        }
        return VmRuntime.newBuilder().setName(spec.getName()).setSite(site).setState("inmigrate").setMigrationPort(2).build();
    }

    @Override
    public VmRuntime startMigration(StartMigrationRequest request) {
        calls.add("startMigration " + request.getName() + " " + request.getToSite() + ":" + request.getMigrationPort());
        return runtime(request.getName());
    }

    @Override
    public synchronized MigrationState queryMigration(String vm) {
        if (System.nanoTime() < silentUntilNanos) {
            throw new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, site + " is restarting");
        }
        Deque<MigrationState> queue = vmStates.getOrDefault(vm, states);
        MigrationState state = queue.size() > 1 ? queue.poll() : queue.peek();
        if (state == null) {
            throw new HeliotropeException(ErrorCode.VM_NOT_FOUND, "no VM '" + vm + "' at " + site);
        }
        return state.toBuilder().setVmState(vmState).build();
    }

    @Override
    public MigrationState handOver(String vm) {
        calls.add("handOver " + vm);
        return status("pre-switchover").toBuilder().setHandover(HandoverState.HANDOVER_STATE_DONE).build();
    }

    @Override
    public synchronized MigrationState continueMigration(String vm) {
        calls.add("continueMigration " + vm);
        MigrationState completed = status("completed").toBuilder().setStopMicros(1).build();
        vmStates.computeIfAbsent(vm, name -> new ArrayDeque<>()).clear();
        then(vm, completed);
        return completed;
    }

    @Override
    public synchronized VmRuntime cancelMigration(String vm) {
        calls.add("cancelMigration " + vm);
        if (vmStates.containsKey(vm)) {
            vmStates.get(vm).clear();
            then(vm, status("cancelled"));
        } else {
            then(status("cancelled"));
        }
        return runtime(vm);
    }

    @Override
    public VmRuntime pauseVm(String vm) {
        calls.add("pauseVm " + vm);
        vmState = "paused";
        return runtime(vm);
    }

    @Override
    public VmRuntime continueVm(String vm) {
        calls.add("continueVm " + vm);
        vmState = "running";
        return runtime(vm);
    }

    @Override
    public VmRuntime stopVm(String vm) {
        calls.add("stopVm " + vm);
        return runtime(vm);
    }

    @Override
    public boolean abortIncoming(String vm) {
        calls.add("abortIncoming " + vm);
        return resumed;
    }

    /** Each read finds 4 KiB more pushed and 8 KiB more fetched than the one before. */
    @Override
    public synchronized Traffic traffic(String image) {
        trafficReads++;
        return new Traffic(4096L * trafficReads, 8192L * trafficReads);
    }

    @Override
    public HandoffStatus standby(String image, String fromSite) {
        calls.add("standby " + image + " from " + fromSite);
        return HandoffStatus.getDefaultInstance();
    }

    @Override
    public HandoffStatus handoff(String image) {
        return HandoffStatus.newBuilder().setImage(image).setPushedBytes(8192).setFetchedBytes(4096).setBacklogBlocks(1).build();
    }

    @Override
    public HandoffStatus reclaim(String image) {
        calls.add("reclaim " + image);
        return HandoffStatus.getDefaultInstance();
    }

    @Override
    public HandoffStatus endHold(String image) {
        calls.add("endHold " + image);
        return HandoffStatus.getDefaultInstance();
    }

    @Override
    public HandoffStatus abandon(String image) {
        calls.add("abandon " + image);
        return HandoffStatus.getDefaultInstance();
    }
}
