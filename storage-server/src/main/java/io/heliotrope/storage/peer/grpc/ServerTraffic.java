package io.heliotrope.storage.peer.grpc;

import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.heliotrope.storage.peer.PeerMetrics;
import io.heliotrope.storage.peer.PeerMetrics.Direction;
import io.heliotrope.storage.peer.SiteDirectory;

import static io.heliotrope.storage.peer.grpc.ClientTraffic.CALLING_SITE;
import static io.heliotrope.storage.peer.grpc.ClientTraffic.size;

/**
 * Counts the bytes of the messages of every peer call both ways, on the link to the site
 * that the call's header names. A name the site directory does not know is counted as
 * {@value #UNKNOWN}, so that no caller can make up meters without end.
 */
final class ServerTraffic implements ServerInterceptor {
    static final String UNKNOWN = "unknown";

    private final SiteDirectory directory;
    private final PeerMetrics metrics;

    ServerTraffic(SiteDirectory directory, PeerMetrics metrics) {
        this.directory = directory;
        this.metrics = metrics;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        String named = headers.get(CALLING_SITE);
        String peer = named != null && directory.grpcAddress(named).isPresent() ? named : UNKNOWN;
        ServerCall<Q, R> counted = new SimpleForwardingServerCall<>(call) {
            @Override
            public void sendMessage(R message) {
                metrics.bytes(peer, Direction.SENT, size(message));
                super.sendMessage(message);
            }
        };
        return new SimpleForwardingServerCallListener<>(next.startCall(counted, headers)) {
            @Override
            public void onMessage(Q message) {
                metrics.bytes(peer, Direction.RECEIVED, size(message));
                super.onMessage(message);
            }
        };
    }
}
