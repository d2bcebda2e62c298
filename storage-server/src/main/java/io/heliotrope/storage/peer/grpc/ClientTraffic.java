package io.heliotrope.storage.peer.grpc;

import com.google.protobuf.MessageLite;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.ForwardingClientCallListener.SimpleForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.heliotrope.storage.peer.PeerMetrics;
import io.heliotrope.storage.peer.PeerMetrics.Direction;

/** On every call to one peer site: names this site in the header, and counts the bytes of the messages both ways. */
final class ClientTraffic implements ClientInterceptor {
    /** The name of the site that makes a peer call. */
    static final Metadata.Key<String> CALLING_SITE = Metadata.Key.of("heliotrope-site", Metadata.ASCII_STRING_MARSHALLER);

    private final String localSite;
    private final String peer;
    private final PeerMetrics metrics;

    ClientTraffic(String localSite, String peer, PeerMetrics metrics) {
        this.localSite = localSite;
        this.peer = peer;
        this.metrics = metrics;
    }

    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        return new SimpleForwardingClientCall<>(next.newCall(method, options)) {
            @Override
            public void start(Listener<R> listener, Metadata headers) {
                headers.put(CALLING_SITE, localSite);
                super.start(new SimpleForwardingClientCallListener<>(listener) {
                    @Override
                    public void onMessage(R message) {
                        metrics.bytes(peer, Direction.RECEIVED, size(message));
                        super.onMessage(message);
                    }
                }, headers);
            }

            @Override
            public void sendMessage(Q message) {
                metrics.bytes(peer, Direction.SENT, size(message));
                super.sendMessage(message);
            }
        };
    }

    /** A message's serialized size, which protobuf computes once and keeps. */
    static long size(Object message) {
        return message instanceof MessageLite proto ? proto.getSerializedSize() : 0;
    }
}
