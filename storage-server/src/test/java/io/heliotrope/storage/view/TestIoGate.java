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
}
