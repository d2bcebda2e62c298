package io.heliotrope.storage.view;

import io.heliotrope.storage.view.IoGate.Kind;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestIoGate {
    @Test
    void aStandbyServesReadsAndFlushesAndReleasesWaitingWritesInOrder() {
        IoGate gate = IoGate.standby();
        List<Integer> ran = new ArrayList<>();
        CompletableFuture<Integer> first = gate.run(Kind.WRITE, () -> CompletableFuture.completedFuture(ran.add(1) ? 1 : 0));
        CompletableFuture<Integer> second = gate.run(Kind.WRITE, () -> CompletableFuture.completedFuture(ran.add(2) ? 2 : 0));
        assertThat(gate.run(Kind.READ, () -> CompletableFuture.completedFuture("read"))).isCompletedWithValue("read");
        assertThat(gate.run(Kind.FLUSH, () -> CompletableFuture.completedFuture("flush"))).isCompletedWithValue("flush");
        assertThat(ran).isEmpty();
        assertThat(gate.waiting()).isEqualTo(2);

        gate.release();
        assertThat(first).isCompletedWithValue(1);
        assertThat(second).isCompletedWithValue(2);
        assertThat(ran).containsExactly(1, 2);
    }

    @Test
    void aHoldWaitsForTheRequestsUnderWayAndHoldsReadsButNotFlushes() {
        IoGate gate = IoGate.opened();
        CompletableFuture<Void> underWay = new CompletableFuture<>();
        gate.run(Kind.WRITE, () -> underWay);

        CompletableFuture<Void> drained = gate.hold();
        CompletableFuture<String> read = gate.run(Kind.READ, () -> CompletableFuture.completedFuture("read"));
        assertThat(gate.run(Kind.FLUSH, () -> CompletableFuture.completedFuture("flush"))).isCompletedWithValue("flush");
        assertThat(drained).isNotDone();
        underWay.complete(null);
        assertThat(drained).isDone();
        assertThat(read).isNotDone();

        gate.end(new IllegalStateException("ended"));
        assertThatThrownBy(read::join).hasRootCauseMessage("ended");
        assertThatThrownBy(() -> gate.run(Kind.FLUSH, () -> CompletableFuture.completedFuture("late")).join()).hasRootCauseMessage("ended");
    }

    @Test
    void whenOpenCompletesAsAStandbyOrAHoldIsReleasedAndFailsOnceTheGateEnds() {
        IoGate gate = IoGate.standby();
        assertThat(gate.isOpen()).isFalse();
        CompletableFuture<Void> opened = gate.whenOpen();
        assertThat(opened).isNotDone();
        gate.release();
        assertThat(gate.isOpen()).isTrue();
        assertThat(opened).isCompleted();
        assertThat(gate.whenOpen()).isCompleted();

        gate.hold();
        assertThat(gate.isOpen()).isFalse();
        CompletableFuture<Void> reopened = gate.whenOpen();
        gate.end(new IllegalStateException("handed over"));
        assertThat(gate.isOpen()).isFalse();
        assertThatThrownBy(reopened::join).hasRootCauseMessage("handed over");
        assertThatThrownBy(() -> gate.whenOpen().join()).hasRootCauseMessage("handed over");
    }

    /** A lease that may lapse pauses the gate whatever its state: a handoff's release does not end the pause, nor a resume the hold. */
    @Test
    void aPauseHoldsReadsAndWritesButNotFlushesUntilItResumesApartFromTheHandoffsStates() {
        IoGate gate = IoGate.opened();
        gate.pause();
        List<String> ran = new ArrayList<>();
        CompletableFuture<Boolean> write = gate.run(Kind.WRITE, () -> CompletableFuture.completedFuture(ran.add("write")));
        CompletableFuture<Boolean> read = gate.run(Kind.READ, () -> CompletableFuture.completedFuture(ran.add("read")));
        assertThat(gate.run(Kind.FLUSH, () -> CompletableFuture.completedFuture("flush"))).isCompletedWithValue("flush");
        assertThat(gate.isOpen()).isFalse();
        CompletableFuture<Void> opened = gate.whenOpen();
        gate.release();
        assertThat(ran).isEmpty();
        assertThat(opened).isNotDone();

        gate.resume();
        assertThat(ran).containsExactly("write", "read");
        assertThat(write).isCompletedWithValue(true);
        assertThat(read).isCompletedWithValue(true);
        assertThat(opened).isCompleted();

        gate.hold();
        gate.pause();
        gate.resume();
        CompletableFuture<String> held = gate.run(Kind.READ, () -> CompletableFuture.completedFuture("held"));
        assertThat(held).isNotDone();
        gate.release();
        assertThat(held).isCompletedWithValue("held");
    }
}
