package io.heliotrope.storage.peer.grpc;

import io.heliotrope.error.HeliotropeException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestClientBatches {
    private final List<Integer> built = new ArrayList<>();
    private final TestingClientCall call = new TestingClientCall();
    private final ClientBatches<Integer, String> batches = new ClientBatches<>(3, i -> {
        built.add(i);
        return i;
    }, "b");

    TestClientBatches() {
        batches.beforeStart(call);
    }

    @Test
    void buildsAndSendsBatchesOnlyWhileTheStreamIsReady() {
        call.ready = 1;
        batches.send();
        assertThat(built).containsExactly(0);
        assertThat(call.halfClosed).isFalse();

        call.ready = 5;
        call.onReady.run();

        assertThat(call.sent).containsExactly(0, 1, 2);
        assertThat(call.halfClosed).isTrue();
    }

    @Test
    void completesWithOneAnswerPerBatchInOrder() {
        batches.onNext("zero");
        batches.onNext("one");
        batches.onNext("two");
        batches.onCompleted();

        assertThat(batches.join()).containsExactly("zero", "one", "two");
    }

    @Test
    void anAnswerMissingAtTheEndFailsTheCall() {
        batches.onNext("zero");
        batches.onCompleted();

        assertThatThrownBy(batches::join).cause().isInstanceOf(HeliotropeException.class).hasMessage("site b answered 1 of 3 batches");
    }
}
