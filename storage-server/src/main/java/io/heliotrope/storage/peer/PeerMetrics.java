package io.heliotrope.storage.peer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import static java.util.Objects.requireNonNull;

/**
 * Traffic on each link between this site and a peer (DESIGN.md section 5): bytes per
 * direction, whichever side started the call ({@code heliotrope.peer.bytes{peer,direction}}),
 * and the fetches, pushes and failed calls this site made. A link's meters are made on its
 * first use, so recording costs no registry lookup after that.
 *
 * <p>The block bytes that this site's pushes and fetches carried are also kept per image,
 * for the site's status ({@link #blockBytes()}), never as meters: image names would make
 * their number unbounded.
 */
public final class PeerMetrics {
    /** Block data carried since the site started: pushed to peers, and fetched from them. */
    public record BlockBytes(long pushed, long fetched) {}

    /** The block bytes of this site's pushes and fetches, per peer and per image (by name), each in name order. */
    public record Traffic(Map<String, BlockBytes> byPeer, Map<String, BlockBytes> byImage) {
        /** A site without peers: a standalone one. */
        public static final Traffic NONE = new Traffic(Map.of(), Map.of());
    }

    public enum Direction {
        SENT,
        RECEIVED
    }

    public enum Call {
        FETCH,
        PUSH,
        PING,
        FENCE,
        COLLECT,
        HEAT
    }

    private final MeterRegistry registry;
    private final Map<String, Link> links = new ConcurrentHashMap<>();
    private final Map<String, ImageBytes> images = new ConcurrentHashMap<>();

    public PeerMetrics(MeterRegistry registry) {
        this.registry = requireNonNull(registry, "registry is null");
    }

    /** Serialized message bytes sent to or received from {@code peer}. */
    public void bytes(String peer, Direction direction, long bytes) {
        Link link = link(peer);
        (direction == Direction.SENT ? link.sent : link.received).increment(bytes);
    }

    /** A fetch of {@code wanted} blocks of {@code image} from {@code peer} that found {@code found} of them, with {@code dataBytes} of block data. */
    public void fetched(String peer, String image, int wanted, int found, long dataBytes, long startNanos) {
        Link link = link(peer);
        link.fetchedFound.increment(found);
        link.fetchedNotHere.increment(wanted - found);
        link.fetchedBytes.increment(dataBytes);
        link.fetchLatency.record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
        images.computeIfAbsent(image, name -> new ImageBytes()).fetched.add(dataBytes);
    }

    /** A copy fetched from {@code peer} arrived while the local copy already had its version: it was fetched twice, or pushed meanwhile. */
    public void redundant(String peer) {
        link(peer).fetchedRedundant.increment();
    }

    /** A push of copies of {@code image} to {@code peer} with {@code dataBytes} of block data, of which it stored {@code stored} and refused the others. */
    public void pushed(String peer, String image, int stored, int refused, long dataBytes) {
        Link link = link(peer);
        link.pushedStored.increment(stored);
        link.pushedRefused.increment(refused);
        link.pushedBytes.increment(dataBytes);
        images.computeIfAbsent(image, name -> new ImageBytes()).pushed.add(dataBytes);
    }

    /** What this site's pushes and fetches carried so far; the peers it neither pushed to nor fetched from are left out. */
    public Traffic blockBytes() {
        Map<String, BlockBytes> byPeer = new TreeMap<>();
        links.forEach((peer, link) -> {
            BlockBytes bytes = new BlockBytes((long) link.pushedBytes.count(), (long) link.fetchedBytes.count());
            if (bytes.pushed() > 0 || bytes.fetched() > 0) {
                byPeer.put(peer, bytes);
            }
        });
        Map<String, BlockBytes> byImage = new TreeMap<>();
        images.forEach((image, bytes) -> byImage.put(image, new BlockBytes(bytes.pushed.sum(), bytes.fetched.sum())));
        return new Traffic(byPeer, byImage);
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
                Counter.builder("heliotrope.peer.fetch.redundant.blocks").tag("peer", peer)
                        .description("Copies fetched from a peer that arrived when the local copy already had their version").register(registry),
                Counter.builder("heliotrope.peer.fetch.bytes").baseUnit("bytes").tag("peer", peer)
                        .description("Block data in the copies this site fetched from a peer").register(registry),
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

    private record Link(Counter sent, Counter received, Counter fetchedFound, Counter fetchedNotHere, Counter fetchedRedundant, Counter fetchedBytes, Timer fetchLatency,
                        Counter pushedStored, Counter pushedRefused, Counter pushedBytes, Map<Call, Counter> failures) {}

    private static final class ImageBytes {
        final LongAdder pushed = new LongAdder();
        final LongAdder fetched = new LongAdder();
    }
}
