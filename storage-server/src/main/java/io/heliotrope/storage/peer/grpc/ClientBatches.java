package io.heliotrope.storage.peer.grpc;

import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * The client side of a stream of batches ({@link ServerBatches}): completes with one
 * response per request, in order. A request is built and sent only while the stream is
 * ready, so batches wait here, unbuilt, while the peer or the path is slower than we are.
 */
final class ClientBatches<Q, R> extends CompletableFuture<List<R>> implements ClientResponseObserver<Q, R> {
    private final int requests;
    private final IntFunction<Q> request;
    private final List<R> responses;
    private final String site;
    private ClientCallStreamObserver<Q> call;
    private int sent;

    /** {@code requests} requests, the i-th built by {@code request}; pass as the response observer when starting the call. */
    ClientBatches(int requests, IntFunction<Q> request, String site) {
        this.requests = requests;
        this.request = request;
        this.responses = new ArrayList<>(requests);
        this.site = site;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<Q> call) {
        this.call = call;
        call.setOnReadyHandler(this::send);
    }

    /** Sends what the stream takes now; once every request is sent, half-closes it. */
    synchronized void send() {
        if (sent == requests || isDone()) {
            return;
        }
        while (sent < requests && call.isReady()) {
            call.onNext(request.apply(sent++));
        }
        if (sent == requests) {
            call.onCompleted();
        }
    }

    /**
     * The answers of all the streams of one call, in their order. The first failure fails it,
     * and cancels the streams still running: the call has failed, their answers would be lost.
     */
    static <Q, R> CompletableFuture<List<R>> all(List<ClientBatches<Q, R>> streams) {
        CompletableFuture<List<R>> all = new CompletableFuture<>();
        AtomicInteger running = new AtomicInteger(streams.size());
        for (ClientBatches<Q, R> stream : streams) {
            stream.whenComplete((responses, failure) -> {
                if (failure != null) {
                    if (all.completeExceptionally(failure)) {
                        streams.forEach(ClientBatches::cancelCall);
                    }
                } else if (running.decrementAndGet() == 0) {
                    all.complete(streams.stream().flatMap(done -> done.join().stream()).toList());
                }
            });
        }
        return all;
    }

    private synchronized void cancelCall() {
        if (!isDone()) {
            call.cancel("another stream of the same call failed", null);
        }
    }

    @Override
    public synchronized void onNext(R response) {
        responses.add(response);
    }

    @Override
    public void onError(Throwable failure) {
        completeExceptionally(failure);
    }

    @Override
    public synchronized void onCompleted() {
        if (responses.size() == requests) {
            complete(responses);
        } else {
            completeExceptionally(new HeliotropeException(ErrorCode.STORAGE_FAILURE,
                    "site " + site + " answered " + responses.size() + " of " + requests + " batches"));
        }
    }
}
