package io.heliotrope.storage.peer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * Traffic on each link between this site and a peer (DESIGN.md section 5): bytes per
 * direction, whichever side started the call ({@code heliotrope.peer.bytes{peer,direction}}),
 * and the fetches, pushes and failed calls this site made. A link's meters are made on its
 * first use, so recording costs no registry lookup after that.
 */
public final class PeerMetrics {
    public enum Direction {
        SENT,
        RECEIVED
    }

    public enum Call {
        FETCH,
        PUSH,
        PING,
        FENCE,
        COLLECT
    }

    private final MeterRegistry registry;
    private final Map<String, Link> links = new ConcurrentHashMap<>();

    public PeerMetrics(MeterRegistry registry) {
        this.registry = requireNonNull(registry, "registry is null");
    }

    /** Serialized message bytes sent to or received from {@code peer}. */
    public void bytes(String peer, Direction direction, long bytes) {
        Link link = link(peer);
        (direction == Direction.SENT ? link.sent : link.received).increment(bytes);
    }

    /** A fetch of {@code wanted} blocks from {@code peer} that found {@code found} of them. */
    public void fetched(String peer, int wanted, int found, long startNanos) {
        Link link = link(peer);
        link.fetchedFound.increment(found);
        link.fetchedNotHere.increment(wanted - found);
        link.fetchLatency.record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
    }

    /** A push to {@code peer} of {@code dataBytes} of block data, of which it stored {@code stored} copies and refused the others. */
    public void pushed(String peer, int stored, int refused, long dataBytes) {
        Link link = link(peer);
        link.pushedStored.increment(stored);
        link.pushedRefused.increment(refused);
        link.pushedBytes.increment(dataBytes);
    }

    public void failed(String peer, Call call) {
        link(peer).failures.get(call).increment();
    }

    private Link link(String peer) {
        return links.computeIfAbsent(peer, this::newLink);
    }

    private Link newLink(String peer) {
        Map<Call, Counter> failures = new EnumMap<>(Call.class);
        for (Call call : Call.values()) {
            failures.put(call, Counter.builder("heliotrope.peer.failures").tag("peer", peer).tag("call", tag(call)).register(registry));
        }
        return new Link(
                bytes(peer, Direction.SENT),
                bytes(peer, Direction.RECEIVED),
                Counter.builder("heliotrope.peer.fetch.blocks").tag("peer", peer).tag("outcome", "found").register(registry),
                Counter.builder("heliotrope.peer.fetch.blocks").tag("peer", peer).tag("outcome", "not_here").register(registry),
                Timer.builder("heliotrope.peer.fetch.latency").tag("peer", peer).register(registry),
                Counter.builder("heliotrope.peer.push.blocks").tag("peer", peer).tag("outcome", "stored").register(registry),
                Counter.builder("heliotrope.peer.push.blocks").tag("peer", peer).tag("outcome", "refused").register(registry),
                Counter.builder("heliotrope.peer.push.bytes").baseUnit("bytes").tag("peer", peer).register(registry),
                failures);
    }

    private Counter bytes(String peer, Direction direction) {
        return Counter.builder("heliotrope.peer.bytes").baseUnit("bytes")
                .description("Serialized gRPC message bytes on the link to a peer site, in calls either side started")
                .tag("peer", peer).tag("direction", tag(direction)).register(registry);
    }

    private static String tag(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }

    private record Link(Counter sent, Counter received, Counter fetchedFound, Counter fetchedNotHere, Timer fetchLatency,
                        Counter pushedStored, Counter pushedRefused, Counter pushedBytes, Map<Call, Counter> failures) {}
}
