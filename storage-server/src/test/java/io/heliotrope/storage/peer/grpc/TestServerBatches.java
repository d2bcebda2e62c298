package io.heliotrope.storage.peer.grpc;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

class TestServerBatches {
    private final TestingServerCall<String> call = new TestingServerCall<>();
    private final List<CompletableFuture<String>> answers = new ArrayList<>();
    private final ServerBatches<Integer, String> batches = new ServerBatches<>(call, batch -> {
        CompletableFuture<String> answer = new CompletableFuture<>();
        answers.add(answer);
        return answer;
    });

    @Test
    void readsTheNextBatchOnlyOnceTheLastIsAnswered() {
        assertThat(call.requested).isEqualTo(1);
        batches.onNext(1);
        assertThat(call.requested).as("nothing more read while the first batch is worked on").isEqualTo(1);

        answers.get(0).complete("one");

        assertThat(call.sent).containsExactly("one");
        assertThat(call.requested).isEqualTo(2);
    }

    @Test
    void readsTheNextBatchOnlyOnceTheClientTakesMore() {
        batches.onNext(1);
        call.ready(false);
        answers.get(0).complete("one");
        assertThat(call.requested).as("nothing more read while the client is behind").isEqualTo(1);

        call.ready(true);

        assertThat(call.requested).isEqualTo(2);
    }

    @Test
    void completesOnlyOnceTheLastBatchIsAnswered() {
        batches.onNext(1);
        batches.onCompleted();
        assertThat(call.completed).isFalse();

        answers.get(0).complete("one");

        assertThat(call.sent).containsExactly("one");
        assertThat(call.completed).isTrue();
    }

    @Test
    void aFailedBatchEndsTheCallWithItsStatus() {
        batches.onNext(1);

        answers.get(0).completeExceptionally(new HeliotropeException(ErrorCode.NO_SPACE, "the store is full"));

        assertThat(call.failure).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
        assertThat(call.sent).isEmpty();
    }
}
