package io.heliotrope.storage.peer.grpc;

import io.grpc.Deadline;
import io.grpc.Channel;
import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import io.heliotrope.error.GrpcErrors;
import io.heliotrope.grpc.ResponseFuture;
import io.heliotrope.grpc.ResponsesFuture;
import io.heliotrope.proto.storage.v1.CollectResponse;
import io.heliotrope.proto.storage.v1.FenceResponse;
import io.heliotrope.proto.storage.v1.PeerServiceGrpc;
import io.heliotrope.proto.storage.v1.PeerServiceGrpc.PeerServiceStub;
import io.heliotrope.proto.storage.v1.PingRequest;
import io.heliotrope.proto.storage.v1.PingResponse;
import io.heliotrope.storage.BlockStore.BlockVersion;
import io.heliotrope.storage.BlockStore.Copy;
import io.heliotrope.storage.peer.PeerMetrics;
import io.heliotrope.storage.peer.PeerMetrics.Call;
import io.heliotrope.storage.peer.Peers;
import io.heliotrope.storage.peer.SiteDirectory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.IntFunction;

import static io.heliotrope.storage.BlockStore.BLOCK_SIZE;
import static java.util.Objects.requireNonNull;

/**
 * {@link Peers} over gRPC. A call's blocks travel in batches of at most {@value #BATCH}
 * (1 MiB of data), spread over as many of the site's connections as there are batches, a
 * stream on each; answers come back in the order asked. Every call has the configured
 * timeout as its deadline (a push may be given its own), and fails with
 * {@code PEER_UNAVAILABLE} when it passes. A
 * background pull's fetches travel on connections of their own, marked as background.
 */
public final class GrpcPeers implements Peers {
    static final int BATCH = 256;

    private final SiteChannels channels;
    private final PeerMetrics metrics;
    private final GrpcPeersConfig config;

    /** Calls from {@code localSite} to the sites of {@code directory}. */
    public GrpcPeers(String localSite, SiteDirectory directory, PeerMetrics metrics, GrpcPeersConfig config) {
        this.metrics = requireNonNull(metrics, "metrics is null");
        this.config = requireNonNull(config, "config is null");
        this.channels = new SiteChannels(requireNonNull(localSite, "localSite is null"), requireNonNull(directory, "directory is null"),
                metrics, config.connections(), config.bulkConnections());
    }

    @Override
    public CompletableFuture<List<Copy>> fetch(String site, ImageRef image, List<Wanted> wanted) {
        return fetch(site, image, wanted, false);
    }

    @Override
    public CompletableFuture<List<Copy>> fetchInBackground(String site, ImageRef image, List<Wanted> wanted) {
        return fetch(site, image, wanted, true);
    }

    private CompletableFuture<List<Copy>> fetch(String site, ImageRef image, List<Wanted> wanted, boolean background) {
        long start = System.nanoTime();
        List<List<Wanted>> batches = batches(wanted);
        CompletableFuture<List<Copy>> fetched = inBatches(site, background, batches.size(),
                i -> PeerProtos.fetchRequest(image, batches.get(i), background), PeerServiceStub::fetch, config.timeout())
                .thenApply(responses -> {
                    List<Copy> copies = new ArrayList<>(wanted.size());
                    for (int i = 0; i < responses.size(); i++) {
                        copies.addAll(PeerProtos.copies(batches.get(i), responses.get(i), site));
                    }
                    metrics.fetched(site, image.name(), wanted.size(), copies.size(), dataBytes(copies), start);
                    return copies;
                });
        return finish(site, Call.FETCH, fetched);
    }

    @Override
    public CompletableFuture<boolean[]> push(String site, ImageRef image, List<Copy> copies) {
        return push(site, image, copies, config.timeout());
    }

    @Override
    public CompletableFuture<boolean[]> push(String site, ImageRef image, List<Copy> copies, Duration timeout) {
        List<List<Copy>> batches = batches(copies);
        CompletableFuture<boolean[]> pushed = inBatches(site, false, batches.size(), i -> PeerProtos.pushRequest(image, batches.get(i)), PeerServiceStub::push,
                timeout)
                .thenApply(responses -> {
                    boolean[] stored = new boolean[copies.size()];
                    int count = 0;
                    for (int i = 0; i < responses.size(); i++) {
                        boolean[] batch = PeerProtos.stored(responses.get(i), batches.get(i).size(), site);
                        for (int j = 0; j < batch.length; j++) {
                            stored[i * BATCH + j] = batch[j];
                            count += batch[j] ? 1 : 0;
                        }
                    }
                    metrics.pushed(site, image.name(), count, copies.size() - count, dataBytes(copies));
                    return stored;
                });
        return finish(site, Call.PUSH, pushed);
    }

    @Override
    public CompletableFuture<Long> fence(String site, ImageRef image, long belowEpoch) {
        ResponseFuture<FenceResponse> response = new ResponseFuture<>();
        try {
            stub(channels.next(site, 1).get(0), deadline()).fence(PeerProtos.fenceRequest(image, belowEpoch), response);
        } catch (RuntimeException e) {
            return finish(site, Call.FENCE, CompletableFuture.failedFuture(e));
        }
        return finish(site, Call.FENCE, response.thenApply(FenceResponse::getBelowEpoch));
    }

    @Override
    public CompletableFuture<List<BlockVersion>> collect(String site, ImageRef image, long firstEpoch, long lastEpoch) {
        ResponsesFuture<CollectResponse> responses = new ResponsesFuture<>();
        try {
            stub(channels.next(site, 1).get(0), deadline()).collect(PeerProtos.collectRequest(image, firstEpoch, lastEpoch), responses);
        } catch (RuntimeException e) {
            return finish(site, Call.COLLECT, CompletableFuture.failedFuture(e));
        }
        return finish(site, Call.COLLECT, responses.thenApply(received -> {
            List<BlockVersion> blocks = new ArrayList<>();
            received.forEach(response -> PeerProtos.addCollected(response, blocks, site));
            return blocks;
        }));
    }

    @Override
    public CompletableFuture<Duration> ping(String site) {
        ResponseFuture<PingResponse> response = new ResponseFuture<>();
        long start;
        try {
            PeerServiceStub stub = stub(channels.next(site, 1).get(0), deadline());
            start = System.nanoTime();
            stub.ping(PingRequest.getDefaultInstance(), response);
        } catch (RuntimeException e) {
            return finish(site, Call.PING, CompletableFuture.failedFuture(e));
        }
        return finish(site, Call.PING, response.thenApply(ignored -> Duration.ofNanos(System.nanoTime() - start)));
    }

    /** A connection to {@code site}, for the other services a site offers its peers (the handoff's). */
    public Channel channel(String site) {
        return channels.next(site, 1).get(0);
    }

    @Override
    public void close() {
        channels.close();
    }

    /** The block data the copies carry: zero markers carry none. */
    private static long dataBytes(List<Copy> copies) {
        return copies.stream().filter(copy -> !copy.zero()).count() * BLOCK_SIZE;
    }

    private static <T> List<List<T>> batches(List<T> items) {
        List<List<T>> batches = new ArrayList<>();
        for (int from = 0; from < items.size(); from += BATCH) {
            batches.add(items.subList(from, Math.min(items.size(), from + BATCH)));
        }
        return batches;
    }

    /**
     * Sends {@code count} batches to {@code site}, spread in runs over as many connections as
     * there are batches (up to all of them; the bulk ones for {@code bulk}), a stream on each;
     * completes with the answers in the order of the batches.
     */
    private <Q, R> CompletableFuture<List<R>> inBatches(String site, boolean bulk, int count, IntFunction<Q> request,
                                                       BiFunction<PeerServiceStub, StreamObserver<R>, StreamObserver<Q>> method, Duration timeout) {
        if (count == 0) {
            return CompletableFuture.completedFuture(List.of());
        }
        List<ManagedChannel> taken;
        try {
            taken = bulk ? channels.nextBulk(site, Math.min(count, config.bulkConnections()))
                    : channels.next(site, Math.min(count, config.connections()));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        Deadline deadline = deadline(timeout);
        int perStream = (count + taken.size() - 1) / taken.size();
        List<ClientBatches<Q, R>> streams = new ArrayList<>(taken.size());
        for (int i = 0; i * perStream < count; i++) {
            int first = i * perStream;
            ClientBatches<Q, R> stream = new ClientBatches<>(Math.min(perStream, count - first), j -> request.apply(first + j), site);
            method.apply(stub(taken.get(i), deadline), stream);
            stream.send();
            streams.add(stream);
        }
        return ClientBatches.all(streams);
    }

    private <T> CompletableFuture<T> finish(String site, Call call, CompletableFuture<T> future) {
        return future.handle((value, failure) -> {
            if (failure != null) {
                metrics.failed(site, call);
                throw GrpcErrors.toException(failure, "site " + site);
            }
            return value;
        });
    }

    private Deadline deadline() {
        return deadline(config.timeout());
    }

    private static Deadline deadline(Duration timeout) {
        return Deadline.after(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Calls wait for their connection until the deadline rather than fail at once while it
     * is down: a peer that restarts is reached as soon as it listens again.
     */
    private static PeerServiceStub stub(ManagedChannel channel, Deadline deadline) {
        return PeerServiceGrpc.newStub(channel).withDeadline(deadline).withWaitForReady();
    }
}
